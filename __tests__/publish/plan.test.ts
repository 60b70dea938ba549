import { describe, expect, it } from 'vitest'
import type { Evaluation } from '../../src/engine/evaluation.js'
import type { Evidence } from '../../src/evidence/types.js'
import {
  CHECK_RUN_MARK,
  planPublication,
  type PublicationContext,
  type PublicationSettings
} from '../../src/publish/plan.js'
import { commentMarker } from '../../src/publish/memory.js'
import { invalidVerdict } from '../../src/verdict/decide.js'
import type { ReasonCode, VerdictKind } from '../../src/verdict/types.js'
import { evaluationOf, gateResult, judgeRun, SEARCH_RUBRIC } from '../helpers/evaluation.js'
import { RANKING_EVIDENCE } from '../helpers/evidence.js'
import { EXAMPLE_REASONS } from '../helpers/reasons.js'

/** What GitHub accepts (docs.github.com): a comment body, a check run's summary. */
const COMMENT_LIMIT = 65_536
const SUMMARY_LIMIT = 65_535

const SETTINGS: PublicationSettings = {
  checkName: 'rubric-council',
  failOn: 'unclear',
  comment: true
}
const CONTEXT: PublicationContext = {
  headSha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821',
  pullRequest: 7,
  detailsUrl: 'https://github.com/o/r/actions/runs/1',
  reportPath: '/tmp/rc/report.json'
}

const JUDGED = evaluationOf(SEARCH_RUBRIC, [gateResult('pytest', 'pass')])

/** An evaluation whose verdict is `kind`, for one reason. */
function verdictOf(kind: VerdictKind, code?: ReasonCode): Evaluation {
  const base = invalidVerdict('invalid_input', 'x')
  return {
    ...JUDGED,
    verdict: {
      ...base,
      verdict: kind,
      exitCode: kind === 'PASS' ? 0 : kind === 'FAIL' ? 1 : 2,
      reasons: code === undefined ? [] : [EXAMPLE_REASONS[code]]
    }
  }
}

/**
 * docs/verdict.md, "The step result and the check run", cell by cell: the verdict (with a reason
 * of its class), fail-on → whether the step fails, its exit code, the check run's conclusion.
 */
const DOCUMENTED = [
  ['PASS', undefined, 'unclear', 'passes', 0, 'success'],
  ['PASS', undefined, 'fail', 'passes', 0, 'success'],
  ['PASS', undefined, 'never', 'passes', 0, 'success'],
  ['FAIL', 'gate_failed', 'unclear', 'fails', 1, 'failure'],
  ['FAIL', 'gate_failed', 'fail', 'fails', 1, 'failure'],
  ['FAIL', 'gate_failed', 'never', 'passes', 0, 'failure'],
  ['UNCLEAR', 'invalid_rubric', 'unclear', 'fails', 2, 'action_required'],
  ['UNCLEAR', 'invalid_rubric', 'fail', 'fails', 2, 'action_required'],
  ['UNCLEAR', 'invalid_rubric', 'never', 'passes', 0, 'action_required'],
  ['UNCLEAR', 'invalid_input', 'fail', 'fails', 2, 'action_required'],
  ['UNCLEAR', 'workflow_modified', 'fail', 'fails', 2, 'action_required'],
  ['UNCLEAR', 'workflow_modified', 'never', 'passes', 0, 'action_required'],
  ['UNCLEAR', 'missing_credentials', 'unclear', 'fails', 2, 'action_required'],
  ['UNCLEAR', 'missing_credentials', 'fail', 'passes', 0, 'neutral'],
  ['UNCLEAR', 'missing_credentials', 'never', 'passes', 0, 'neutral'],
  ['UNCLEAR', 'judge_disagreement', 'fail', 'passes', 0, 'neutral'],
  ['UNCLEAR', 'incomplete_coverage', 'unclear', 'fails', 2, 'action_required']
] as const

const PASSING = verdictOf('PASS')

describe('the check run and the step, per docs/verdict.md', () => {
  it.each(DOCUMENTED)(
    '%s (%s) with fail-on: %s → the step %s (exit %d), the check %s',
    (kind, code, failOn, step, exit, conclusion) => {
      const plan = planPublication(verdictOf(kind, code), { ...SETTINGS, failOn }, CONTEXT)
      expect(plan.checkRun.conclusion).toBe(conclusion)
      expect(plan.checkRun.status).toBe('completed')
      expect(plan.step.fails ? `fails (exit ${plan.step.exitCode})` : 'passes').toBe(
        step === 'fails' ? `fails (exit ${exit})` : 'passes'
      )
    }
  )

  it('a verdict a maintainer accepted concludes success and passes the step, with a notice', () => {
    const accepted = {
      ...verdictOf('FAIL', 'gate_failed'),
      acceptance: { by: 'maintainer', reason: 'flaky gate', commit: CONTEXT.headSha }
    }
    const plan = planPublication(accepted, SETTINGS, CONTEXT)
    expect(plan.checkRun.conclusion).toBe('success')
    expect(plan.step).toEqual({
      fails: false,
      level: 'notice',
      message: 'Rubric Council: FAIL (gate_failed), accepted for ec26c3e by @maintainer: flaky gate'
    })
  })

  it('a failing step says the verdict, its reasons and each reason’s message', () => {
    const plan = planPublication(verdictOf('FAIL', 'gate_failed'), SETTINGS, CONTEXT)
    expect(plan.step).toEqual({
      fails: true,
      exitCode: 1,
      message:
        'Rubric Council: FAIL (gate_failed)\n- 2 of 3 gates did not pass: "npm test" (exit 1), "npm run lint" (timed out)'
    })
    const passing = planPublication(PASSING, SETTINGS, CONTEXT)
    expect(passing.step).toEqual({ fails: false, level: 'info', message: 'Rubric Council: PASS' })
  })

  it.each([
    ['main', 'main', 'rubric-council'],
    ['release-1', 'main', 'rubric-council (release-1)'],
    // A base that cannot be told apart from the default branch counts as another branch.
    ['main', '', 'rubric-council (main)']
  ])(
    'into %s (default branch %j) is named %s, and the comment keeps its marker',
    (baseRef, defaultBranch, name) => {
      const plan = planPublication(PASSING, SETTINGS, {
        ...CONTEXT,
        base: { baseRef, defaultBranch }
      })
      expect(plan.checkRun.name).toBe(name)
      expect(plan.dryRun.checkRun).toContain(`the check run "${name}"`)
      expect(plan.comment?.split('\n', 1)[0]).toBe('<!-- rubric-council:rubric-council -->')
    }
  )

  it('goes on the head commit under the check’s name, linking the run', () => {
    const plan = planPublication(PASSING, { ...SETTINGS, checkName: 'council (main)' }, CONTEXT)
    expect(plan.checkRun).toMatchObject({
      name: 'council (main)',
      headSha: CONTEXT.headSha,
      detailsUrl: 'https://github.com/o/r/actions/runs/1'
    })
    expect(plan.checkRun.title).toMatch(/^PASS: /)
  })

  it('says in its summary what to do next, in pull request terms', () => {
    const failing = evaluationOf(SEARCH_RUBRIC, [gateResult('npm test', 'fail')])
    expect(planPublication(failing, SETTINGS, CONTEXT).checkRun.summary).toContain(
      '**Next:** Run <code>npm test</code> locally to see why it failed, fix it and push; the check runs again on every push.'
    )
  })
})

describe('the outputs', () => {
  it('are every output of action.yml but comment-url, which only the comment’s write knows', () => {
    const plan = planPublication(verdictOf('UNCLEAR', 'missing_credentials'), SETTINGS, CONTEXT)
    expect(plan.outputs).toEqual({
      verdict: 'UNCLEAR',
      'exit-code': '2',
      score: '',
      confidence: '',
      reasons: 'missing_credentials',
      recommendation: 'RETRY',
      'rubric-hash': PASSING.rubric.hash ?? '',
      report: '/tmp/rc/report.json'
    })
  })
})

describe('the annotations', () => {
  /** `count` findings, each on a line the patch shows. */
  function withFindings(count: number): Evaluation {
    const patch =
      'diff --git a/src/rank.ts b/src/rank.ts\n--- a/src/rank.ts\n+++ b/src/rank.ts\n' +
      `@@ -0,0 +1,${count} @@\n${Array.from({ length: count }, (_, i) => `+line ${i}\n`).join('')}`
    const evidence: Evidence = {
      ...RANKING_EVIDENCE,
      files: [
        {
          path: 'src/rank.ts',
          status: 'added',
          additions: count,
          deletions: 0,
          binary: false,
          kind: 'source',
          patch
        }
      ]
    }
    const run = judgeRun(SEARCH_RUBRIC, {
      judge: 'openai:gpt-5.4-mini',
      findings: Array.from({ length: count }, (_, i) => ({
        severity: 'minor' as const,
        title: `finding ${i + 1}`,
        evidence: 'here',
        path: 'src/rank.ts',
        line: i + 1
      }))
    })
    return {
      ...evaluationOf(SEARCH_RUBRIC, [gateResult('true', 'pass')], { runs: [run], quorum: 1 }),
      evidence
    }
  }

  it('come in batches of at most 50, one request each, all of them kept', () => {
    const plan = planPublication(withFindings(120), SETTINGS, CONTEXT)
    expect(plan.checkRun.annotations.map(b => b.length)).toEqual([50, 50, 20])
    expect(plan.checkRun.annotations.flat().map(a => a.start_line)).toEqual(
      Array.from({ length: 120 }, (_, i) => i + 1)
    )
    expect(plan.checkRun.annotations[0]?.[0]).toMatchObject({
      path: 'src/rank.ts',
      annotation_level: 'warning',
      title: 'minor: finding 1'
    })
    expect(plan.dryRun.checkRun).toBe(
      'Rubric Council (dry run): it would create the check run "rubric-council" on ec26c3e concluding success, with 120 annotations'
    )
  })

  it('are one empty batch when there are none', () => {
    expect(planPublication(PASSING, SETTINGS, CONTEXT).checkRun.annotations).toEqual([[]])
  })
})

describe('the texts stay within what GitHub accepts', () => {
  const huge: Evaluation = {
    ...verdictOf('FAIL', 'gate_failed'),
    gates: Array.from({ length: 400 }, (_, i) =>
      // Output of every width: GitHub counts the check run's summary in bytes.
      gateResult(`check-${i}`, 'fail', `error ${i}: ${'x✅界'.repeat(700)}\n`)
    )
  }
  const others = [
    { id: 99, appSlug: 'github-actions', htmlUrl: 'https://github.com/o/r/runs/99', externalId: '' }
  ]

  it('the check run’s summary and the comment, with the warning about other check runs', () => {
    const plan = planPublication(huge, SETTINGS, { ...CONTEXT, checkRunsNamed: others })
    expect(Buffer.byteLength(plan.checkRun.summary)).toBeLessThanOrEqual(SUMMARY_LIMIT)
    expect(Buffer.byteLength(plan.checkRun.summary)).toBeGreaterThan(SUMMARY_LIMIT * 0.9)
    expect(Array.from(plan.comment ?? '').length).toBeLessThanOrEqual(COMMENT_LIMIT)
    expect(plan.checkRun.summary).toContain('Another check run named')
    expect(plan.comment).toContain('Another check run named')
    expect(plan.checkRun.title.length).toBeLessThanOrEqual(255)
  })

  it('the job summary, in bytes', () => {
    const plan = planPublication(huge, SETTINGS, CONTEXT)
    expect(Buffer.byteLength(plan.summary)).toBeLessThanOrEqual(1024 * 1024)
  })
})

describe('other check runs of the check’s name on the head commit', () => {
  const others = [
    {
      id: 4242,
      appSlug: 'github-actions',
      htmlUrl: 'https://github.com/o/r/runs/4242',
      externalId: ''
    }
  ]

  it('are named in the comment, under its marker, and in the check run’s summary, with a link', () => {
    const plan = planPublication(PASSING, SETTINGS, { ...CONTEXT, checkRunsNamed: others })
    const warning =
      '> Another check run named <code>rubric-council</code> exists on this commit that Rubric Council did not create: [github-actions, check run 4242](https://github.com/o/r/runs/4242).'
    const [first, second, third] = (plan.comment ?? '').split('\n')
    expect([first, second, third]).toEqual([
      commentMarker('rubric-council'),
      '<!-- rubric-council-alert -->',
      '> [!WARNING]'
    ])
    expect(plan.comment).toContain(warning)
    expect(plan.checkRun.summary).toContain(warning)
    expect(plan.checkRun.summary).toContain('Make the check a ruleset-required workflow')
    expect(plan.warnings).toEqual([
      expect.stringMatching(
        /^Rubric Council: another check run named "rubric-council" exists on this commit that Rubric Council did not create: https:\/\/github\.com\/o\/r\/runs\/4242 \(by github-actions\); make the check a ruleset-required workflow, see .*docs\/security\.md$/
      )
    ])
  })

  it('do not make a link of an address that is not one', () => {
    const odd = [
      {
        id: 5,
        appSlug: '[evil](https://evil.example)',
        htmlUrl: 'javascript:alert(1)',
        externalId: ''
      }
    ]
    const plan = planPublication(PASSING, SETTINGS, { ...CONTEXT, checkRunsNamed: odd })
    expect(plan.checkRun.summary).not.toContain('javascript:')
    expect(plan.checkRun.summary).not.toContain('](https://evil.example)')
  })

  it('leave out the one this review started and those Rubric Council wrote earlier', () => {
    const ours = [
      {
        id: 1,
        appSlug: 'github-actions',
        htmlUrl: 'https://github.com/o/r/runs/1',
        externalId: ''
      },
      {
        id: 2,
        appSlug: 'github-actions',
        htmlUrl: 'https://github.com/o/r/runs/2',
        externalId: CHECK_RUN_MARK
      }
    ]
    const plan = planPublication(PASSING, SETTINGS, {
      ...CONTEXT,
      checkRunId: 1,
      checkRunsNamed: [...ours, ...others]
    })
    expect(plan.warnings).toHaveLength(1)
    expect(plan.checkRun.summary).toContain('check run 4242')
    expect(plan.checkRun.summary).not.toMatch(/check run [12]\]/)
    expect(plan.checkRun.externalId).toBe(CHECK_RUN_MARK)
  })

  it('are named ten at a time: a workflow can make hundreds, and the comment has a limit', () => {
    const many = Array.from({ length: 15 }, (_, i) => ({
      id: 100 + i,
      appSlug: 'github-actions',
      htmlUrl: `https://github.com/o/r/runs/${String(100 + i)}`,
      externalId: ''
    }))
    const plan = planPublication(PASSING, SETTINGS, { ...CONTEXT, checkRunsNamed: many })
    expect(plan.comment?.match(/Another check run named/g)).toHaveLength(10)
    expect(plan.comment).toContain('> And 5 more of that name (the log names each).')
    expect(plan.warnings).toHaveLength(15)
  })

  it('leave everything as it was when there are none', () => {
    const plan = planPublication(PASSING, SETTINGS, { ...CONTEXT, checkRunsNamed: [] })
    expect(plan.comment).not.toContain('[!WARNING]')
    expect(plan.checkRun.summary).not.toContain('Another check run')
    expect(plan.warnings).toEqual([])
  })
})

describe('the comment', () => {
  it('starts with its marker and is absent with comment: off', () => {
    expect(planPublication(PASSING, SETTINGS, CONTEXT).comment?.split('\n', 1)[0]).toBe(
      commentMarker('rubric-council')
    )
    const off = planPublication(PASSING, { ...SETTINGS, comment: false }, CONTEXT)
    expect([off.comment, off.dryRun.comment]).toEqual([undefined, undefined])
  })

  it('is what a dry run prints, titled with the pull request', () => {
    const plan = planPublication(PASSING, SETTINGS, CONTEXT)
    expect(plan.dryRun.comment).toEqual({
      title: 'Rubric Council (dry run): the comment it would post on #7',
      body: plan.comment
    })
  })
})
