import { describe, expect, it } from 'vitest'
import { rubricHash } from '../../src/rubric/hash.js'
import { pullRequest, runInProcess as run, type PullRequest } from '../helpers/in-process.js'
import { lines } from '../helpers/rubric.js'

/**
 * `extends:` in the action (GitHub in memory, gates and git for real): the base branch's rubric
 * names what it extends; the pull request's edits to that line are shown, never followed.
 */

const POLICY = 'octo-org/policy/rubric.md@v1'
const WEAK = 'octo-org/policy/weak.md@v1'

const STRICT_UPSTREAM = lines('## Gates', '- `test ! -f forbidden.txt`')
const WEAK_UPSTREAM = lines('## Gates', '- `true`')

const extending = (spec: string): string =>
  lines('---', `extends: ${spec}`, '---', '## Gates', '- `test -f feature.ts`')

/** A pull request whose GitHub also holds the organisation's rubrics, at their tags. */
function withPolicy(
  base: Record<string, string>,
  head: Record<string, string | null>
): PullRequest {
  const pr = pullRequest(base, head)
  pr.github.setUpstreamFile('octo-org/policy', 'refs/tags/v1', 'rubric.md', STRICT_UPSTREAM)
  pr.github.setUpstreamFile('octo-org/policy', 'refs/tags/v1', 'weak.md', WEAK_UPSTREAM)
  pr.github.setUpstreamFile('octo-org/policy', 'refs/tags/v0', 'rubric.md', WEAK_UPSTREAM)
  return pr
}

/** The comment as a reader sees it: the joiner that keeps `@v1` from mentioning anyone left out. */
const commentBody = (pr: PullRequest): string =>
  (pr.github.commentsOn(pr.number)[0]?.body ?? '').replaceAll('\u200d', '')

describe('a rubric that extends another repository’s, in the action', () => {
  it('is judged on the union of the rules, and its hash covers what it extends', async () => {
    const local = extending(POLICY)
    const clean = withPolicy({ '.github/rubric.md': local }, {})
    const passed = await run(clean)
    expect(passed.outputs.verdict).toBe('PASS')
    expect(passed.outputs['rubric-hash']).not.toBe(rubricHash(local))
    expect(clean.github.upstreamReads).toEqual(['octo-org/policy/rubric.md@refs/tags/v1'])

    // The inherited gate binds: the local file alone would pass this.
    const dirty = withPolicy({ '.github/rubric.md': local }, { 'forbidden.txt': 'x' })
    const failedRun = await run(dirty)
    expect(failedRun.outputs.verdict).toBe('FAIL')
    expect(commentBody(dirty)).toContain(
      `Extends <code>${POLICY}</code>; overrides none of its rules.`
    )
  })

  it.each([
    ['a weaker upstream', WEAK],
    ['another ref', 'octo-org/policy/rubric.md@v0']
  ])(
    'a PR that points extends at %s is judged by the base’s, and its edit shows as a weakening',
    async (_, spec) => {
      const pr = withPolicy(
        { '.github/rubric.md': extending(POLICY) },
        { '.github/rubric.md': extending(spec), 'forbidden.txt': 'x' }
      )
      const result = await run(pr)
      expect(result.outputs.verdict).toBe('FAIL')
      // Only what the base names is read: the PR's edit is never followed.
      expect(pr.github.upstreamReads).toEqual(['octo-org/policy/rubric.md@refs/tags/v1'])
      const body = commentBody(pr)
      expect(body).toContain('This pull request **weakens the rubric** that grades it')
      expect(body).toContain(`extends ${POLICY} → ${spec}`)
    }
  )

  it('never reads what a pull request’s own rubric extends, even with rubric-source: head', async () => {
    for (const setup of [
      // The base has no rubric yet: the PR's own would grade.
      { base: { 'README.md': '# repo\n' }, inputs: {} },
      { base: { '.github/rubric.md': extending(POLICY) }, inputs: { 'rubric-source': 'head' } }
    ]) {
      const pr = withPolicy(setup.base, { '.github/rubric.md': extending(WEAK) })
      const result = await run(pr, { inputs: setup.inputs })
      expect([result.outputs.verdict, result.outputs.reasons]).toEqual([
        'UNCLEAR',
        'invalid_rubric'
      ])
      expect(pr.github.upstreamReads).toEqual([])
      expect(commentBody(pr)).toContain(
        `.github/rubric.md:2:10: error: extends "${WEAK}" is not read from a pull request's own rubric`
      )
    }
  })

  it('reports the base rubric dropping an inherited must-have as a weakening', async () => {
    const pr = pullRequest({
      '.github/rubric.md': lines(
        '---',
        'extends: octo-org/policy/criteria.md@v1',
        '---',
        '## Nice to Have',
        '- secrets: No secret is committed'
      )
    })
    pr.github.setUpstreamFile(
      'octo-org/policy',
      'refs/tags/v1',
      'criteria.md',
      lines('## Criteria', '- secrets: No secret is committed', '- tests: New code has tests')
    )
    await run(pr)
    const body = commentBody(pr)
    expect(body).toContain('This rubric **weakens the rubric it extends**.')
    expect(body).toContain('criterion "secrets" demoted to nice-to-have')
  })

  it('ends UNCLEAR invalid_rubric, naming the missing access, when the upstream cannot be read', async () => {
    const pr = pullRequest({ '.github/rubric.md': extending('octo-org/private/rubric.md@v3') })
    const result = await run(pr)
    expect([result.outputs.verdict, result.outputs.reasons]).toEqual(['UNCLEAR', 'invalid_rubric'])
    expect(commentBody(pr)).toContain(
      'give the action a token with contents: read on octo-org/private'
    )
  })
})
