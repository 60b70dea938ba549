import { describe, expect, it } from 'vitest'
import {
  baseRefOf,
  criteriaOf,
  pullRequestRubric,
  severalRubricFiles,
  type PullRequestRubricFacts
} from '../../src/engine/pull-request-rubric.js'
import { ok } from '../../src/util/result.js'
import { lines, parse } from '../helpers/rubric.js'

/**
 * Which rubric grades a pull request (docs/security.md#the-rubric-is-a-trust-boundary), decided
 * from what was read: the base branch's, unless the run may and does ask for the pull request's
 * own, or the base has none yet where a pull request may bring the first one.
 */

const BASE = lines(
  '## Criteria',
  '- tested: The change is tested',
  '- documented: It is documented'
)
// The pull request's rubric drops a criterion, and names another repository's rubric.
const HEAD = lines(
  '---',
  'extends: octo-org/policy/criteria.md@v1',
  '---',
  '## Criteria',
  '- tested: The change is tested'
)
const HEAD_PLAIN = lines('## Criteria', '- tested: The change is tested')

const facts = (over: Partial<PullRequestRubricFacts> = {}): PullRequestRubricFacts => ({
  path: 'rubric.md',
  repoPath: 'rubric.md',
  head: ok({ text: HEAD_PLAIN, path: 'rubric.md', kind: 'file' }),
  base: { text: BASE },
  source: 'base',
  baseRubricOnly: false,
  central: false,
  baseRef: 'main',
  baseSha: 'b'.repeat(40),
  ...over
})

/** The one issue of a choice that reads no rubric. */
function issue(decided: ReturnType<typeof pullRequestRubric>) {
  if (decided.kind !== 'chosen' || decided.choice.rubric.ok) throw new Error('a rubric was chosen')
  expect(decided.choice.trusted).toBe(false)
  return decided.choice.rubric.problem.issues
}

describe('pullRequestRubric', () => {
  it('grades by the base branch’s rubric, and says how the pull request weakens it', () => {
    const decided = pullRequestRubric(facts())
    if (decided.kind !== 'base') throw new Error(`chose ${decided.kind}`)
    expect(decided.base.text).toBe(BASE)
    expect(decided.review.source).toBe('base')
    expect(decided.review.diff?.weakened).toBe(true)
  })

  it('grades by the pull request’s own with rubric-source: head, untrusted and without its extends', () => {
    const decided = pullRequestRubric(
      facts({ source: 'head', head: ok({ text: HEAD, path: 'rubric.md', kind: 'file' }) })
    )
    const issues = issue(decided)
    expect(issues.map(i => i.rule)).toEqual(['extends'])
    expect(issues[0]?.message).toContain('extends "octo-org/policy/criteria.md@v1" is not read')
  })

  it('ignores rubric-source: head on pull_request_target: the base’s grades', () => {
    const decided = pullRequestRubric(facts({ source: 'head', baseRubricOnly: true }))
    expect(decided.kind).toBe('base')
  })

  it('takes the pull request’s own when the base has none yet, and says so', () => {
    const decided = pullRequestRubric(facts({ base: 'absent' }))
    if (decided.kind !== 'chosen') throw new Error('the base was chosen')
    expect(decided.choice).toMatchObject({ trusted: false, review: { source: 'head' } })
    expect(decided.choice.review?.note).toContain('The base branch has no rubric at rubric.md yet')
  })

  it('takes the working tree’s without a token, and says why', () => {
    const decided = pullRequestRubric(facts({ base: 'unread' }))
    if (decided.kind !== 'chosen') throw new Error('the base was chosen')
    expect(decided.choice.rubric.ok).toBe(true)
    expect(decided.choice.review?.note).toContain('Without a github-token')
  })

  it.each([
    [
      'pull_request_target, the base has none',
      { base: 'absent', baseRubricOnly: true },
      'rubric.md on the base branch main does not exist; pull_request_target uses only the base branch’s rubric'
    ],
    [
      'a central workflow, the base has none',
      { base: 'absent', central: true },
      'rubric.md on the base branch main does not exist; a workflow required from another repository uses only the base branch’s rubric'
    ],
    [
      'a central workflow without a token',
      { base: 'unread', central: true, baseRef: '' },
      `rubric.md at the base commit bbbbbbb could not be read without a github-token`
    ],
    [
      'the base could not be read',
      { base: { problem: 'HTTP 502' } },
      'rubric.md on the base branch main could not be read (HTTP 502); the base branch’s rubric is required with rubric-source: base'
    ]
  ] as const)('grades by nothing on %s: the rubric is missing', (_, over, message) => {
    const issues = issue(pullRequestRubric(facts(over)))
    expect(issues).toHaveLength(1)
    expect(issues[0]?.rule).toBe('missing-file')
    expect(issues[0]?.message).toContain(message)
  })
})

describe('where the base is read', () => {
  it('reads a branch by its full name, never a tag of that name; a commit without a branch', () => {
    expect(baseRefOf({ baseRef: 'main', baseSha: 'c'.repeat(40) })).toBe('refs/heads/main')
    expect(baseRefOf({ baseRef: '', baseSha: 'c'.repeat(40) })).toBe('c'.repeat(40))
  })
})

describe('severalRubricFiles', () => {
  it('lists the main rubric when it exists, then the folder’s, by their paths in the working directory', () => {
    const main = { path: 'review/rubric.md', repoPath: 'app/review/rubric.md', exists: true }
    const folder = ['app/review/rubrics/api.md', 'app/review/rubrics/docs.yml']
    expect(severalRubricFiles(main, folder)).toEqual([
      { path: 'review/rubric.md', repoPath: 'app/review/rubric.md', main: true },
      { path: 'review/rubrics/api.md', repoPath: 'app/review/rubrics/api.md', main: false },
      { path: 'review/rubrics/docs.yml', repoPath: 'app/review/rubrics/docs.yml', main: false }
    ])
    expect(severalRubricFiles({ ...main, exists: false }, folder)?.map(f => f.main)).toEqual([
      false,
      false
    ])
  })

  it('is one rubric, as before, when the folder has none', () => {
    expect(
      severalRubricFiles({ path: 'rubric.md', repoPath: 'rubric.md', exists: true }, [])
    ).toBeUndefined()
  })
})

describe('criteriaOf', () => {
  it('is a must-have when any rubric makes it one', () => {
    const one = parse(lines('## Criteria', '- tested: Tested', '## Nice to Have', '- fast: Fast'))
    const two = parse(lines('## Criteria', '- fast: Fast'))
    expect(criteriaOf([one, two])).toEqual(
      new Map([
        ['tested', true],
        ['fast', true]
      ])
    )
    expect(criteriaOf([one])?.get('fast')).toBe(false)
    expect(criteriaOf([])).toBeUndefined()
  })
})
