import { describe, expect, it } from 'vitest'
import {
  checkoutOf,
  gatesHereProblem,
  labelEventSkip,
  rubricOutside,
  supersededSkip
} from '../../src/engine/run-preparation.js'
import {
  endingWorkflow,
  guardedPaths,
  skipMayApply,
  twinProblem,
  unseenEndProblem,
  type SkipRules
} from '../../src/engine/skip.js'
import type { PullRequestRun } from '../../src/github/event.js'
import { ok } from '../../src/util/result.js'

/**
 * Whether a pull request's run may go on, and whether a `skip-*` rule may skip it: decided from
 * what the action read, without GitHub or a workspace.
 */

const HEAD = 'a'.repeat(40)
const run = (over: Partial<PullRequestRun> = {}): PullRequestRun =>
  ({
    event: 'pull_request_target',
    action: 'opened',
    pr: { number: 7, headSha: HEAD, baseSha: 'b'.repeat(40), baseRef: 'main' },
    baseRubricOnly: true,
    ...over
  }) as PullRequestRun
const withGates = {
  rubric: ok({
    text: '## Gates\n- `npm test`\n- `npm run lint`\n',
    path: 'rubric.md',
    kind: 'file' as const
  }),
  trusted: true
}

describe('labelEventSkip', () => {
  it('lets only the skip label’s own event start a run', () => {
    const labelled = { event: 'pull_request', action: 'labeled', label: 'skip-review' }
    expect(labelEventSkip(labelled, 'skip-review')).toBeUndefined()
    expect(labelEventSkip({ ...labelled, label: 'bug' }, 'skip-review')).toEqual({
      kind: 'skip',
      message:
        'nothing to review for pull_request.labeled of "bug": only the skip-label input\'s label ("skip-review") starts a run'
    })
    expect(labelEventSkip(labelled, '')?.kind).toBe('skip')
    expect(labelEventSkip({ event: 'pull_request', action: 'opened' }, '')).toBeUndefined()
  })
})

describe('supersededSkip', () => {
  it('ends the run of a commit the pull request has moved past, quietly', () => {
    expect(supersededSkip(run(), HEAD)).toBeUndefined()
    expect(supersededSkip(run(), undefined)).toBeUndefined()
    expect(supersededSkip(run(), 'c'.repeat(40))).toEqual({
      kind: 'skip',
      message: `pull request #7 is now at ccccccc, not at aaaaaaa: the review of the newer commit decides`
    })
  })
})

describe('checkoutOf', () => {
  it('takes a base checkout only on pull_request_target, where no gate may run on it', () => {
    expect(checkoutOf('pull_request', undefined)).toBe('pull-request')
    expect(checkoutOf('pull_request_target', 'HEAD is main')).toBe('base')
    expect(checkoutOf('pull_request', 'HEAD is main')).toEqual({ invalid: 'HEAD is main' })
  })
})

describe('rubricOutside', () => {
  it('refuses a rubric path that leaves the workspace', () => {
    expect(rubricOutside('/w', '/w/.github/rubric.md', '.github/rubric.md')).toBeUndefined()
    expect(rubricOutside('/w', '/etc/passwd', '../../etc/passwd')).toBe(
      'the rubric "../../etc/passwd" is outside the workspace (/w); give a path inside the repository'
    )
    expect(rubricOutside('/w', '/w', '.')).toContain('is outside the workspace')
  })
})

describe('gatesHereProblem', () => {
  it('refuses gates on a checkout that is not the pull request, unless they were recorded', () => {
    expect(gatesHereProblem(run(), 'base', withGates, { gates: 'run' })).toContain(
      'the rubric has 2 gates to run, and on pull_request_target the checkout is the base branch'
    )
    expect(gatesHereProblem(run(), 'base', withGates, { gates: 'recorded' })).toBeUndefined()
    expect(gatesHereProblem(run(), 'pull-request', withGates, { gates: 'run' })).toBeUndefined()
    const noGates = {
      ...withGates,
      rubric: ok({ text: '## Criteria\n- a: A\n', path: 'r.md', kind: 'file' as const })
    }
    expect(gatesHereProblem(run(), 'base', noGates, { gates: 'run' })).toBeUndefined()
  })

  it('on workflow_run, asks for the recorded results', () => {
    const triggered = run({ event: 'workflow_run', trigger: { runId: 1, attempt: 1 } })
    expect(gatesHereProblem(triggered, 'base', withGates, { gates: 'run' })).toContain(
      'set gates: recorded'
    )
  })
})

const RULES: SkipRules = { drafts: true, bots: false, label: '', paths: [] }

describe('skipMayApply', () => {
  it('applies only when a rule is set, and on an event the pull request’s activity starts', () => {
    expect(skipMayApply(RULES, 'pull_request')).toBe(true)
    expect(skipMayApply(RULES, 'workflow_dispatch')).toBe(false)
    expect(skipMayApply({ ...RULES, drafts: false }, 'pull_request')).toBe(false)
  })
})

describe('guardedPaths', () => {
  it('guards the machinery, the rubric and the folder of rubrics beside it', () => {
    const guarded = guardedPaths('.github/rubric.md', p => p === 'action.yml')
    expect(['action.yml', '.github/rubric.md', '.github/rubrics/api.md'].map(guarded)).toEqual([
      true,
      true,
      true
    ])
    expect(guarded('.github/rubrics.md')).toBe(false)
    expect(guardedPaths(undefined, () => false)('.github/rubric.md')).toBe(false)
  })
})

describe('twinProblem', () => {
  it('refuses a rule about the pull request when another shares its head commit, or when that is unknown', () => {
    expect(twinProblem({ rule: 'draft' }, [])).toBeUndefined()
    expect(twinProblem({ rule: 'draft' }, [8, 9])).toBe(
      'pull request #8, #9 has the same head commit and base, and the check run on that commit is its too'
    )
    expect(twinProblem({ rule: 'label', label: 'x' }, undefined)).toContain('could not be listed')
    expect(twinProblem({ rule: 'paths', files: 2 }, undefined)).toBeUndefined()
  })
})

describe('endingWorkflow and unseenEndProblem', () => {
  const own = { path: '.github/workflows/review.yml', central: false }

  it('reads the workflow the pull request’s events start, never a central one', () => {
    expect(endingWorkflow({ rule: 'bot', login: 'b' }, undefined, own)).toBeUndefined()
    expect(endingWorkflow({ rule: 'draft' }, undefined, own)).toEqual({
      path: own.path,
      needed: 'ready_for_review'
    })
    expect(endingWorkflow({ rule: 'draft' }, undefined, { ...own, central: true })).toEqual({
      problem: 'the workflow that runs it is not in this repository'
    })
    expect(
      endingWorkflow({ rule: 'label', label: 'x' }, { path: '.github/workflows/gates.yml' }, own)
    ).toEqual({ path: '.github/workflows/gates.yml', needed: 'unlabeled' })
  })

  it('refuses the skip when the workflow would not run again once the reason goes away', () => {
    const ending = { path: own.path, needed: 'ready_for_review' }
    const listening = 'on:\n  pull_request:\n    types: [opened, ready_for_review]\n'
    expect(unseenEndProblem(ending, 'pull_request', listening)).toBeUndefined()
    expect(unseenEndProblem(ending, 'workflow_run', listening)).toBeUndefined()
    expect(unseenEndProblem(ending, 'pull_request', 'on: pull_request\n')).toBe(
      '.github/workflows/review.yml does not run on pull_request ready_for_review, so the check would not run again once the reason goes away'
    )
    expect(unseenEndProblem(ending, 'pull_request', undefined)).toBe(
      '.github/workflows/review.yml could not be read from the workspace'
    )
  })
})
