import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readState } from '../../src/publish/memory.js'
import type { RubricsJsonReport } from '../../src/publish/rubrics.js'
import { pullRequestEvent } from '../helpers/action-run.js'
import { commented } from '../helpers/comment-event.js'
import { pullRequest, runInProcess, type PullRequest } from '../helpers/in-process.js'
import { MemoryGitHub } from '../helpers/memory-github.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from '../helpers/provider-standin.js'

/**
 * Several rubrics in `.github/rubrics/` (docs/rubric.md#several-rubrics), end to end in process:
 * GitHub in memory serving the base branch's files, git for real, the judges played by the
 * provider stand-in. Each rubric has its own check run; one that does not apply concludes
 * `success` "not applicable"; the judges of one see the files it matches; and a pull request
 * cannot add, rename or narrow the rubrics that grade it.
 */

const rubric = (front: string, criteria = '- careful: The change is careful'): string =>
  `---\n${front}\ndimensions: false\n---\n## Criteria\n${criteria}\n`

const PAYMENTS = rubric('paths: [services/payments/**]')
const DOCS = rubric("paths: ['docs/**', '!docs/drafts/**']", '- clear: The docs are clear')
/** Base files every pull request here starts from; `feature.ts` unchanged by the helper. */
const BASE = {
  '.github/rubrics/payments.md': PAYMENTS,
  '.github/rubrics/docs.md': DOCS,
  'feature.ts': 'export const feature = 1\n',
  'services/payments/charge.ts': 'export const charge = (n: number) => n\n',
  'services/auth/login.ts': 'export const login = () => true\n',
  'lib/shared.ts': 'export const shared = 1\n',
  'docs/guide.md': '# Guide\n'
}
const PAYMENT_CHANGE = {
  'services/payments/charge.ts': 'export const charge = (n: number) => n * 100\n'
}

let providers: StandIn
/** The criteria the judges FAIL. */
let failing: string[] = []

beforeAll(async () => {
  providers = await startProviderStandIn(call => ({
    json: wireAnswer(call.schema, { fail: failing })
  }))
})
afterAll(async () => {
  await providers.close()
})

const WORKFLOW = '.github/workflows/review.yml'

const review = (pr: PullRequest, inputs: Record<string, string> = {}, event?: string) =>
  runInProcess(pr, {
    inputs: { models: 'openai:gpt-5.4-nano,openai:gpt-5.4-mini', ...inputs },
    providers: {
      OPENAI_API_KEY: 'sk-rubrics-test-0123456789',
      OPENAI_BASE_URL: providers.openaiBaseUrl,
      GITHUB_WORKFLOW_REF: `octo-org/octo-repo/${WORKFLOW}@refs/pull/${String(pr.number)}/merge`
    },
    ...(event !== undefined && { event })
  })

const checksOn = (pr: PullRequest) =>
  new Map(
    pr.github.checkRuns
      .filter(c => c.head_sha === pr.repo.headSha)
      .map(c => [c.name, { conclusion: c.conclusion, title: c.title }])
  )
const comments = (pr: PullRequest) => pr.github.commentsOn(pr.number)
const report = (path: string | undefined): RubricsJsonReport =>
  JSON.parse(readFileSync(path ?? '', 'utf8')) as RubricsJsonReport

describe('several rubrics', () => {
  it('judges only the rubric whose paths a pull request touches, one call per member; the other concludes success "not applicable"', async () => {
    failing = []
    const pr = pullRequest(BASE, PAYMENT_CHANGE)
    const before = providers.calls.length
    const result = await review(pr)
    expect([result.outputs.verdict, result.code]).toEqual(['PASS', 0])
    // Two members, one rubric judged: two calls, not four.
    expect(providers.calls.length - before).toBe(2)
    const checks = checksOn(pr)
    expect([...checks.keys()]).toEqual(['rubric-council / payments', 'rubric-council / docs'])
    expect(checks.get('rubric-council / payments')?.conclusion).toBe('success')
    expect(checks.get('rubric-council / payments')?.title).toMatch(/^PASS: must 1\/1/)
    expect(checks.get('rubric-council / docs')).toEqual({
      conclusion: 'success',
      title: 'not applicable: no changed file matches paths docs/**, !docs/drafts/**'
    })
    // One sticky comment, a section per rubric that applied.
    expect(comments(pr)).toHaveLength(1)
    const body = comments(pr)[0]?.body ?? ''
    expect(body).toContain('| <code>rubric-council / docs</code> | ➖ not applicable |')
    expect(body).toContain('<summary><b>payments</b>: ✅ PASS</summary>')
    const written = report(result.outputs.report)
    expect(written.rubrics.map(r => [r.name, r.applicable, r.report?.verdict])).toEqual([
      ['payments', true, 'PASS'],
      ['docs', false, undefined]
    ])
  })

  it("shows a rubric's judges the files it matches, and the other changed files by name only", async () => {
    failing = []
    const auth = rubric('paths: [services/auth/**]')
    const pr = pullRequest(
      { ...BASE, '.github/rubrics/auth.md': auth },
      {
        ...PAYMENT_CHANGE,
        'services/auth/login.ts': 'export const login = () => SECRET_AUTH_CHANGE\n'
      }
    )
    const before = providers.calls.length
    const result = await review(pr, { models: 'openai:gpt-5.4-nano' })
    expect(result.outputs.verdict).toBe('PASS')
    const prompts = providers.calls.slice(before).map(c => c.text)
    expect(prompts).toHaveLength(2)
    const payments = prompts.find(p => p.includes('n * 100')) ?? ''
    const auths = prompts.find(p => p.includes('SECRET_AUTH_CHANGE')) ?? ''
    // Each sees its own file's change, and names the other's without its content.
    expect(payments).not.toContain('SECRET_AUTH_CHANGE')
    expect(payments).toContain('services/auth/login.ts')
    expect(payments).toContain('not shown: out-of-scope')
    expect(auths).not.toContain('n * 100')
    expect(checksOn(pr).get('rubric-council / auth')?.conclusion).toBe('success')
  })

  it('puts the worst verdict first in the comment, and fails the step with the failing rubric named', async () => {
    failing = ['clear']
    const pr = pullRequest(BASE, { ...PAYMENT_CHANGE, 'docs/guide.md': '# Guide\n\nMore.\n' })
    const result = await review(pr, { models: 'openai:gpt-5.4-nano' })
    expect([result.outputs.verdict, result.code]).toEqual(['FAIL', 1])
    expect([result.outputs['exit-code'], result.outputs.recommendation]).toEqual(['1', 'RETRY'])
    expect(checksOn(pr).get('rubric-council / docs')?.conclusion).toBe('failure')
    expect(checksOn(pr).get('rubric-council / payments')?.conclusion).toBe('success')
    const body = comments(pr)[0]?.body ?? ''
    expect(body.indexOf('<b>docs</b>')).toBeLessThan(body.indexOf('<b>payments</b>'))
    expect(body).toContain('<details open>\n<summary><b>docs</b>: ❌ FAIL</summary>')
    expect(result.log.join('\n')).toMatch(/rubric-council \/ docs: Rubric Council: FAIL/)
    // Each rubric keeps its own history; the pull request's has the worst verdict.
    const state = readState(body)
    expect(state.history.at(-1)).toMatchObject({
      verdict: 'FAIL',
      summary: 'docs FAIL · payments PASS'
    })
    expect(Object.keys(state.rubrics ?? {}).sort()).toEqual([
      'rubric-council / docs',
      'rubric-council / payments'
    ])
  })

  it('keeps the main rubric as the catch-all, under the check’s own name', async () => {
    failing = []
    const pr = pullRequest(
      { ...BASE, '.github/rubric.md': rubric('title: Everything') },
      { 'lib/shared.ts': 'export const shared = 2\n' }
    )
    const result = await review(pr, { models: 'openai:gpt-5.4-nano' })
    expect(result.outputs.verdict).toBe('PASS')
    const checks = checksOn(pr)
    expect(checks.get('rubric-council')?.conclusion).toBe('success')
    expect(checks.get('rubric-council')?.title).toMatch(/^PASS/)
    expect(checks.get('rubric-council / payments')?.title).toMatch(/^not applicable/)
  })

  it('attack: a changed file no rubric that applies matches counts against coverage, so it cannot ride along unseen', async () => {
    failing = []
    const pr = pullRequest(BASE, {
      ...PAYMENT_CHANGE,
      'lib/shared.ts': 'export const shared = () => process.env.PAYMENTS_KEY\n'
    })
    const before = providers.calls.length
    const result = await review(pr, { models: 'openai:gpt-5.4-nano' })
    expect([result.outputs.verdict, result.outputs.reasons]).toEqual([
      'UNCLEAR',
      'incomplete_coverage'
    ])
    expect(checksOn(pr).get('rubric-council / payments')?.conclusion).toBe('action_required')
    for (const call of providers.calls.slice(before))
      expect(call.text).not.toContain('PAYMENTS_KEY')
  })

  describe('attack: a file outside the judged rubric counts as seen only when another rubric’s judges were shown it', () => {
    const HIDDEN = 'lib/shared.ts'
    const SNEAK = { ...PAYMENT_CHANGE, [HIDDEN]: 'export const shared = () => process.env.KEY\n' }
    const companions = {
      // Its paths match lib/**, but it has no criteria: no judge is asked at all.
      'gates only': '---\npaths: [lib/**]\n---\n## Gates\n- `true`\n',
      // Its paths match lib/**, but its exclude keeps the file from its judges.
      excluding: rubric("paths: [lib/**]\nexclude: ['lib/shared.ts']", '- tidy: The code is tidy'),
      // The control: its judges are shown the file, which therefore does not count.
      seeing: rubric('paths: [lib/**]', '- tidy: The code is tidy')
    }

    for (const [variant, companion] of Object.entries(companions)) {
      it(variant, async () => {
        failing = []
        const pr = pullRequest({ ...BASE, '.github/rubrics/lib.md': companion }, SNEAK)
        const before = providers.calls.length
        const result = await review(pr, { models: 'openai:gpt-5.4-nano' })
        const shown = providers.calls.slice(before).some(c => c.text.includes('process.env.KEY'))
        const written = report(result.outputs.report)
        const payments = written.rubrics.find(r => r.name === 'payments')?.report
        const omitted = payments?.coverage?.omitted.find(o => o.path === HIDDEN)
        if (variant === 'seeing') {
          expect(shown).toBe(true)
          expect(result.outputs.verdict).toBe('PASS')
          expect(omitted).toMatchObject({
            counts: false,
            detail: "outside this rubric's paths; shown to the judges of rubric-council / lib"
          })
        } else {
          expect(shown).toBe(false)
          expect([result.outputs.verdict, result.outputs.reasons]).toEqual([
            'UNCLEAR',
            'incomplete_coverage'
          ])
          expect(checksOn(pr).get('rubric-council / payments')?.conclusion).toBe('action_required')
          expect(omitted).toMatchObject({ counts: true })
          expect(omitted?.detail).toContain(
            'the judges of no other rubric that applies are shown it'
          )
        }
      })
    }
  })

  it('attack: a pull request cannot narrow, rename or add the rubrics that grade it', async () => {
    failing = ['careful']
    const pr = pullRequest(BASE, {
      ...PAYMENT_CHANGE,
      // Narrowed to nothing it touches, and a second file claiming the same check run's name.
      '.github/rubrics/payments.md': rubric('paths: [nowhere/**]'),
      '.github/rubrics/lenient.md':
        '---\nname: payments\ndimensions: false\n---\n## Criteria\n- ok: Anything\n'
    })
    const result = await review(pr, { models: 'openai:gpt-5.4-nano' })
    expect(result.outputs.verdict).toBe('FAIL')
    const checks = checksOn(pr)
    // Graded by the base branch's rubric; the added file is not a rubric until it is merged.
    expect(checks.get('rubric-council / payments')?.conclusion).toBe('failure')
    expect([...checks.keys()].sort()).toEqual([
      'rubric-council / docs',
      'rubric-council / payments'
    ])
    expect(comments(pr)[0]?.body).toContain(
      '**weakens:** paths \\[services/payments/\\*\\*\\] → \\[nowhere/\\*\\*\\]'
    )
  })

  it('attack: with rubric-source head, a rubric of the folder reached through a symbolic link is not read', async () => {
    const outside = join(mkdtempSync(join(tmpdir(), 'rc-outside-')), 'secret.md')
    writeFileSync(outside, `${rubric('paths: [services/payments/**]')}runner-secret-0123456789\n`)
    for (const linked of ['file', 'folder'] as const) {
      const pr = pullRequest(BASE, PAYMENT_CHANGE)
      const rubrics = join(pr.repo.dir, '.github/rubrics')
      if (linked === 'file') {
        rmSync(join(rubrics, 'payments.md'))
        symlinkSync(outside, join(rubrics, 'payments.md'))
      } else {
        // The folder itself a link to one that holds the outside file as payments.md.
        const elsewhere = mkdtempSync(join(tmpdir(), 'rc-rubrics-'))
        writeFileSync(join(elsewhere, 'payments.md'), readFileSync(outside, 'utf8'))
        writeFileSync(join(elsewhere, 'docs.md'), DOCS)
        rmSync(rubrics, { recursive: true })
        symlinkSync(elsewhere, rubrics)
      }
      const before = providers.calls.length
      const result = await review(pr, { 'rubric-source': 'head' })
      const prompts = providers.calls
        .slice(before)
        .map(c => c.text)
        .join('\n')
      expect(prompts, linked).not.toContain('runner-secret')
      expect(comments(pr)[0]?.body ?? '', linked).not.toContain('runner-secret')
      expect(result.outputs.verdict, linked).toBe('UNCLEAR')
      expect(checksOn(pr).get('rubric-council / payments')?.conclusion, linked).toBe(
        'action_required'
      )
      expect(comments(pr)[0]?.body ?? '', linked).toContain(
        'through the symbolic link .github/rubrics'
      )
    }
  })

  it('a named rubric that becomes invalid reports on its own check run, never leaving its last PASS there', async () => {
    failing = []
    const named = rubric('name: payments-core\npaths: [services/payments/**]')
    const pr = pullRequest({ ...BASE, '.github/rubrics/payments.md': named }, PAYMENT_CHANGE)
    expect((await review(pr, { models: 'openai:gpt-5.4-nano' })).outputs.verdict).toBe('PASS')
    expect(checksOn(pr).get('rubric-council / payments-core')?.conclusion).toBe('success')
    // The base branch's copy breaks (an unknown key), and the same head is reviewed again.
    pr.github.setFile(
      pr.repo.baseSha,
      '.github/rubrics/payments.md',
      named.replace('dimensions: false', 'dimensions: false\nthreshold: 7')
    )
    const again = await review(pr, { models: 'openai:gpt-5.4-nano' })
    expect(again.outputs.verdict).toBe('UNCLEAR')
    const checks = checksOn(pr)
    expect(checks.get('rubric-council / payments-core')?.conclusion).toBe('action_required')
    expect(checks.has('rubric-council / payments')).toBe(false)
  })

  it('a named rubric whose extends cannot be read reports on its own check run', async () => {
    const named = rubric(
      'name: payments-core\nextends: octo-org/rules/missing.md@v1\npaths: [services/payments/**]'
    )
    const pr = pullRequest({ ...BASE, '.github/rubrics/payments.md': named }, PAYMENT_CHANGE)
    const result = await review(pr, { models: 'openai:gpt-5.4-nano' })
    expect(result.outputs.verdict).toBe('UNCLEAR')
    const checks = checksOn(pr)
    expect(checks.get('rubric-council / payments-core')?.conclusion).toBe('action_required')
    expect(checks.has('rubric-council / payments')).toBe(false)
  })

  it('attack: two base rubrics of one name do not both write its check run; the second says why', async () => {
    failing = ['careful']
    const pr = pullRequest(
      {
        ...BASE,
        '.github/rubrics/zz-lenient.md':
          '---\nname: payments\ndimensions: false\n---\n## Criteria\n- ok: Anything\n'
      },
      PAYMENT_CHANGE
    )
    const result = await review(pr, { models: 'openai:gpt-5.4-nano' })
    expect(result.outputs.verdict).toBe('FAIL')
    const payments = pr.github.checkRuns.filter(
      c => c.head_sha === pr.repo.headSha && c.name === 'rubric-council / payments'
    )
    // The first file's verdict stands: the duplicate is UNCLEAR, never a success under that name.
    expect(payments.map(c => c.conclusion).sort()).toEqual(['action_required', 'failure'])
    expect(result.log.join('\n')).toContain(
      'the rubric name "payments" is already that of .github/rubrics/payments.md'
    )
  })

  it('concludes every rubric "skipped" when a skip rule holds', async () => {
    const pr = pullRequest(
      {
        ...BASE,
        [WORKFLOW]:
          'on:\n  pull_request:\n    types: [opened, synchronize, ready_for_review]\njobs: {}\n'
      },
      PAYMENT_CHANGE
    )
    const result = await review(
      pr,
      { 'skip-drafts': 'true' },
      pullRequestEvent(pr.repo, { number: pr.number, pullRequest: { draft: true } })
    )
    expect(result.outputs.verdict).toBe('SKIPPED')
    expect(checksOn(pr)).toEqual(
      new Map([
        [
          'rubric-council / docs',
          { conclusion: 'success', title: 'skipped: a draft pull request' }
        ],
        [
          'rubric-council / payments',
          { conclusion: 'success', title: 'skipped: a draft pull request' }
        ]
      ])
    )
  })

  describe('maintainers’ commands', () => {
    const MAINTAINER = { login: 'octo-maintainer', type: 'User' }
    const REASON = 'the flaky upstream check, tracked in #12'

    /** Judged once with docs failing `clear`, the review run there to be re-run. */
    async function judged(): Promise<PullRequest> {
      failing = ['clear']
      const github = new MemoryGitHub()
      const pr = pullRequest(
        BASE,
        { ...PAYMENT_CHANGE, 'docs/guide.md': '# Guide\n\nMore.\n' },
        github
      )
      github.setPermission(MAINTAINER.login, 'write')
      github.addRun('rubric-council.yml', pr.number, pr.repo.headSha)
      expect((await review(pr, { models: 'openai:gpt-5.4-nano' })).outputs.verdict).toBe('FAIL')
      return pr
    }

    it('waives a must-have of one rubric: its check passes on the re-run, at no provider cost', async () => {
      const pr = await judged()
      await commented(pr, `/council waive clear ${REASON}`, MAINTAINER)
      expect(pr.github.reruns).toHaveLength(1)
      const calls = providers.calls.length
      const again = await review(pr, { models: 'openai:gpt-5.4-nano' })
      expect(providers.calls.length).toBe(calls)
      expect([
        again.outputs.verdict,
        checksOn(pr).get('rubric-council / docs')?.conclusion
      ]).toEqual(['PASS', 'success'])
      expect(comments(pr)[0]?.body).toContain('<b>clear</b> · WAIVED by @octo-maintainer')
    })

    it('accepts the whole pull request: every rubric judged on the head concludes success', async () => {
      const pr = await judged()
      await commented(pr, `/council accept ${REASON}`, MAINTAINER)
      const checks = checksOn(pr)
      expect(checks.get('rubric-council / docs')).toEqual({
        conclusion: 'success',
        title: `Accepted by @octo-maintainer: ${REASON}`
      })
      // Still accepted when the same head is reviewed again.
      const again = await review(pr, { models: 'openai:gpt-5.4-nano' })
      expect([again.outputs.verdict, again.code]).toEqual(['FAIL', 0])
      expect(checksOn(pr).get('rubric-council / docs')?.conclusion).toBe('success')
    })
  })
})
