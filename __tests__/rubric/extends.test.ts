import { describe, expect, it } from 'vitest'
import { formatIssue } from '../../src/rubric/errors.js'
import { parseRubric } from '../../src/rubric/parse.js'
import { readExtends, type UpstreamFile } from '../../src/rubric/read-extends.js'
import { ok } from '../../src/util/result.js'
import { lines, parse } from '../helpers/rubric.js'

const ORG = 'octo-org/.github/rubrics/base.md@v1'

const UPSTREAM = lines(
  '---',
  'thresholds: { pass: 0.8 }',
  'exclude: ["*.lock"]',
  '---',
  '## Gates',
  '- `npm test`',
  '## Criteria',
  '- tests: New code has tests',
  '- secrets: No secret is committed',
  '## Nice to Have',
  '- docs: Public functions are documented'
)

function merged(local: string, upstream: Record<string, string> = { [ORG]: UPSTREAM }) {
  const result = parseRubric({ text: local, path: '.github/rubric.md', upstream })
  if (!result.ok) throw new Error(result.problem.map(formatIssue).join('\n'))
  return result.value
}

function problems(local: string, upstream: Record<string, string> = {}): string[] {
  const result = parseRubric({ text: local, path: '.github/rubric.md', upstream })
  if (result.ok) throw new Error('expected problems')
  return result.problem.map(formatIssue)
}

describe('extends: a rubric of another repository merged in', () => {
  it('judges on the union of gates and criteria, the local file adding its own', () => {
    const rubric = merged(
      lines('---', `extends: ${ORG}`, '---', '## Criteria', '- api: The API is versioned')
    )
    expect(rubric.gates.map(g => g.command)).toEqual(['npm test'])
    expect(rubric.criteria.map(c => [c.id, c.required])).toEqual([
      ['tests', true],
      ['secrets', true],
      ['docs', false],
      ['api', true]
    ])
    expect(rubric.thresholds.pass).toBe(0.8)
    expect(rubric.exclude).toEqual(['*.lock'])
    expect(rubric.inherited).toEqual({ from: [ORG], overrides: [], weakened: false })
  })

  it('inherits the council’s reserves, budget and efforts unless the local file sets them', () => {
    const upstream = {
      [ORG]: lines(
        '---',
        'council:',
        '  reserve: [{ model: openai:gpt-5.5, reasoning: high }]',
        '  max_extra_votes: 1',
        '---',
        '## Criteria',
        '- tests: New code has tests'
      )
    }
    const inherited = merged(lines('---', `extends: ${ORG}`, '---'), upstream).council
    expect([inherited.reserve, inherited.maxExtraVotes, inherited.memberReasoning]).toEqual([
      ['openai:gpt-5.5'],
      1,
      { 'openai:gpt-5.5': 'high' }
    ])
    const local = merged(
      lines('---', `extends: ${ORG}`, 'council:', '  max_extra_votes: 2', '---'),
      upstream
    ).council
    expect([local.reserve, local.maxExtraVotes]).toEqual([['openai:gpt-5.5'], 2])
  })

  it('takes a file that only names what it extends', () => {
    expect(merged(lines('---', `extends: ${ORG}`, '---')).criteria).toHaveLength(3)
  })

  it('hashes the merged rubric: a change upstream is a change of rubric', () => {
    const local = lines('---', `extends: [${ORG}]`, '---')
    const before = merged(local).hash
    const after = merged(local, { [ORG]: UPSTREAM.replace('has tests', 'has unit tests') }).hash
    expect(before).not.toBe(after)
    expect(before).not.toBe(parse(local.replace(/extends.*\n/, '---\n## Gates\n- `x`\n')).hash)
  })

  it('reports every inherited rule it overrides; any change to a must-have weakens', () => {
    const rubric = merged(
      lines(
        '---',
        `extends: ${ORG}`,
        'thresholds: { pass: 0.7 }',
        '---',
        '## Criteria',
        '- secrets: No secret is committed, except in tests',
        '## Nice to Have',
        '- tests: New code has tests',
        '- docs: Public functions are documented in the README'
      )
    )
    expect(rubric.criteria.filter(c => c.required).map(c => c.id)).toEqual(['secrets'])
    expect(rubric.inherited?.overrides).toEqual([
      { text: 'criterion "tests" demoted to nice-to-have', weakens: true },
      {
        text: 'criterion "secrets" reworded: "No secret is committed" → "No secret is committed, except in tests"',
        weakens: true
      },
      {
        text: 'criterion "docs" reworded: "Public functions are documented" → "Public functions are documented in the README"',
        weakens: false
      },
      { text: 'thresholds.pass 0.8 → 0.7', weakens: true }
    ])
    expect(rubric.inherited?.weakened).toBe(true)
  })

  it('merges nested extends, and names each rubric it came from', () => {
    const TEAM = 'octo-org/team/rubric.yml@0123456789abcdef0123456789abcdef01234567'
    const rubric = merged(lines('---', `extends: ${TEAM}`, '---'), {
      [TEAM]: lines(`extends: ${ORG}`, 'criteria: [{ id: perf, description: It is fast }]'),
      [ORG]: UPSTREAM
    })
    expect(rubric.criteria.map(c => c.id)).toEqual(['tests', 'secrets', 'docs', 'perf'])
    expect(rubric.inherited?.from).toEqual([TEAM, ORG])
  })

  it('refuses a cycle, a rubric not read, and an invalid inherited rubric, by file and line', () => {
    const A = 'octo-org/a/r.md@v1'
    const B = 'octo-org/b/r.md@v1'
    expect(
      problems(lines('---', 'title: x', `extends: ${A}`, '---'), {
        [A]: lines('---', `extends: ${B}`, '---'),
        [B]: lines('---', `extends: ${A}`, '---')
      })
    ).toEqual([`${B}:2:10: error: extends "${A}" makes a cycle: ${A} → ${B} → ${A} [extends]`])
    expect(problems(lines('---', `extends: ${ORG}`, '---'))).toEqual([
      `.github/rubric.md:2:10: error: extends "${ORG}", which was not read (rubrics in other repositories are read through the GitHub API, with a token) [extends]`
    ])
    expect(
      problems(lines('---', `extends: ${ORG}`, '---'), {
        [ORG]: lines('---', 'thresholds: { pass: 2 }', '---', '## Criteria', '- a: A')
      })
    ).toEqual([`${ORG}:2:21: error: thresholds.pass must be at most 1, got 2 [threshold]`])
  })

  it('refuses extends more than 3 levels deep', () => {
    const level = (n: number): string => `octo-org/r${n}/rubric.md@v1`
    const chain = Object.fromEntries(
      [1, 2, 3].map(n => [level(n), lines('---', `extends: ${level(n + 1)}`, '---')])
    )
    expect(
      problems(lines('---', `extends: ${level(1)}`, '---'), {
        ...chain,
        [level(4)]: UPSTREAM
      })
    ).toEqual([
      `${level(3)}:2:10: error: extends "${level(4)}" is more than 3 levels deep (${level(1)} → ${level(2)} → ${level(3)} → ${level(4)}); extend a rubric that extends less [extends]`
    ])
    // Three levels are fine.
    expect(
      merged(lines('---', `extends: ${level(2)}`, '---'), { ...chain, [level(4)]: UPSTREAM })
        .criteria
    ).toHaveLength(3)
  })

  it('refuses what is not owner/repo/path@ref', () => {
    const [problem] = problems(lines('---', 'extends: octo-org/policy@main', '---'))
    expect(problem).toContain('.github/rubric.md:2:10: error:')
    expect(problem).toContain('owner/repo/path@ref')
  })
})

describe('reading what extends names', () => {
  /** GitHub as the test sets it: files by `owner/repo/path@ref`; reads are recorded. */
  function reader(files: Record<string, string>) {
    const reads: string[] = []
    const read = (file: UpstreamFile) => {
      const key = `${file.owner}/${file.repo}/${file.path}@${file.ref}`
      reads.push(key)
      const text = files[key]
      return Promise.resolve(
        text === undefined
          ? { ok: false as const, problem: { status: 404, message: 'Not Found' } }
          : ok(text)
      )
    }
    return { read, reads }
  }

  it('reads a tag as a tag and a full SHA as a commit, never a branch, each once', async () => {
    const SHA = 'octo-org/team/r.md@0123456789abcdef0123456789abcdef01234567'
    const { read, reads } = reader({
      'octo-org/.github/rubrics/base.md@refs/tags/v1': UPSTREAM,
      'octo-org/team/r.md@0123456789abcdef0123456789abcdef01234567': lines(
        '---',
        `extends: ${ORG}`,
        '---'
      )
    })
    const text = lines('---', `extends: [${ORG}, ${SHA}]`, '---')
    const result = await readExtends({ text, path: '.github/rubric.md', kind: 'file' }, read)
    expect(reads).toEqual([
      'octo-org/.github/rubrics/base.md@refs/tags/v1',
      'octo-org/team/r.md@0123456789abcdef0123456789abcdef01234567'
    ])
    if (!result.ok) throw new Error('expected the rubric to be read')
    expect(parseRubric(result.value).ok).toBe(true)
  })

  it('stops at a cycle without reading forever, and reports it', async () => {
    const A = 'octo-org/a/r.md@v1'
    const B = 'octo-org/b/r.md@v1'
    const { read, reads } = reader({
      'octo-org/a/r.md@refs/tags/v1': lines('---', `extends: ${B}`, '---'),
      'octo-org/b/r.md@refs/tags/v1': lines('---', `extends: ${A}`, '---')
    })
    const result = await readExtends(
      { text: lines('---', `extends: ${A}`, '---'), path: 'r.md', kind: 'file' },
      read
    )
    expect(reads).toHaveLength(2)
    if (!result.ok) throw new Error('expected the texts')
    const parsed = parseRubric(result.value)
    expect(parsed.ok ? [] : parsed.problem.map(p => p.message)).toEqual([
      `extends "${A}" makes a cycle: ${A} → ${B} → ${A}`
    ])
  })

  it('names the file and the access the token lacks when it cannot be read', async () => {
    const { read } = reader({})
    const result = await readExtends(
      { text: lines('---', `extends: ${ORG}`, '---'), path: '.github/rubric.md', kind: 'file' },
      read
    )
    expect(result.ok ? [] : result.problem.issues.map(formatIssue)).toEqual([
      `.github/rubric.md:2:10: error: extends "${ORG}": octo-org/.github has no file rubrics/base.md at the tag v1 (a ref must be a tag or a full commit SHA; a branch is not read), or the token cannot see octo-org/.github: the job's GITHUB_TOKEN reads only its own repository, so for a private octo-org/.github give the action a token with contents: read on octo-org/.github (a GitHub App's installation token, or a fine-grained token) as github-token [extends]`
    ])
  })

  it('says a token is needed when there is none', async () => {
    const result = await readExtends(
      { text: lines('---', `extends: ${ORG}`, '---'), path: '.github/rubric.md', kind: 'file' },
      undefined
    )
    expect(result.ok ? '' : (result.problem.issues[0]?.message ?? '')).toContain(
      'no GitHub token to read it with'
    )
  })
})
