import { describe, expect, it } from 'vitest'
import {
  branchPushed,
  notReverified,
  pendingCheck,
  rubricChange
} from '../../src/bot/rubric-push.js'
import { rubricHash } from '../../src/rubric/hash.js'

/** What a push changed of the rubrics, and what the bot says of it (src/bot/rubric-push.ts). */

const A = 'a'.repeat(40)
const B = 'b'.repeat(40)
const ZERO = '0'.repeat(40)
const push = (ref: string, before = A, after = B) => ({
  ref,
  before,
  after,
  repository: { default_branch: 'main' }
})

describe('branchPushed', () => {
  it('a branch moved from one commit to another', () => {
    expect(branchPushed(push('refs/heads/release'))).toEqual({
      ok: true,
      value: { branch: 'release', before: A, after: B, defaultBranch: 'main' }
    })
  })

  it('nothing to re-verify for a tag, a new branch or a deleted one', () => {
    const problems = [
      push('refs/tags/v1'),
      push('refs/heads/new', ZERO, B),
      push('refs/heads/gone', A, ZERO)
    ].map(p => {
      const pushed = branchPushed(p)
      return pushed.ok ? '' : pushed.problem
    })
    expect(problems).toEqual([
      'nothing to re-verify for a push to refs/tags/v1',
      'nothing to re-verify for a push to refs/heads/new',
      'nothing to re-verify for a push to refs/heads/gone'
    ])
  })
})

describe('rubricChange', () => {
  const main = '.github/rubric.md'

  it('names the one rubric’s hashes, or how many rubrics changed', () => {
    const one = rubricChange(main, [main], [['old', 'new']], 'main')
    expect(one).toEqual({
      ok: true,
      value: { how: `${rubricHash('old')} → ${rubricHash('new')}`, paths: main }
    })
    const api = '.github/rubrics/api.md'
    const two = rubricChange(
      main,
      [main, api],
      [
        ['x', 'y'],
        [undefined, 'z']
      ],
      'main'
    )
    expect(two.ok && two.value).toEqual({ how: '2 rubrics changed', paths: `${main}, ${api}` })
  })

  it('says nothing changed, naming the folder with several', () => {
    const api = '.github/rubrics/api.md'
    const same = rubricChange(
      main,
      [main, api],
      [
        ['x', 'x'],
        ['y', 'y']
      ],
      'main'
    )
    expect(!same.ok && same.problem).toBe(
      '.github/rubric.md and .github/rubrics/ did not change on main; nothing to re-verify'
    )
  })

  it('marks the check pending under the name a pull request into that branch has', () => {
    const pushed = branchPushed(push('refs/heads/release'))
    if (!pushed.ok) throw new Error(pushed.problem)
    const pending = pendingCheck('rubric-council', pushed.value, { how: 'a → b', paths: main })
    expect(pending.title).toBe('The rubric changed: a → b; re-verifying')
    expect(pending.name).toBe('rubric-council (release)')
  })

  it('names at most ten pull requests that were not re-verified', () => {
    const problems = Array.from({ length: 12 }, (_, i) => `#${String(i)}: no run`)
    const warning = notReverified(problems).split('\n')
    expect(warning[0]).toBe(
      '12 pull requests were not re-verified; their verdicts are left as they are:'
    )
    expect(warning.slice(1)).toHaveLength(11)
    expect(warning.at(-1)).toBe('- and 2 more')
  })
})
