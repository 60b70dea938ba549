import { describe, expect, it } from 'vitest'
import {
  judgedPlans,
  planRubrics,
  scopeText,
  withShownElsewhere,
  type RubricFile
} from '../../src/engine/rubric-set.js'
import { inScope, patternProblem, unmatchedPatterns } from '../../src/rubric/paths.js'
import { parseRubric } from '../../src/rubric/parse.js'
import type { Rubric } from '../../src/rubric/types.js'

/**
 * `paths` and `paths-ignore` mean what they mean in `on.pull_request`: the examples of GitHub's
 * "filter pattern cheat sheet" (docs.github.com, Workflow syntax for GitHub Actions), each with
 * the paths it lists as matching, and paths it must not match.
 */
const CHEAT_SHEET: readonly (readonly [string, readonly string[], readonly string[]])[] = [
  ['**', ['all/the/files.md', '.github/rubric.md'], []],
  ['*.js', ['app.js', 'index.js', '.eslintrc.js'], ['js/index.js']],
  ['**.js', ['index.js', 'js/index.js', 'src/js/app.js'], ['index.ts']],
  ['docs/*', ['docs/README.md', 'docs/file.txt'], ['docs/mona/octocat.txt', 'README.md']],
  ['docs/**', ['docs/README.md', 'docs/mona/octocat.txt'], ['README.md', 'src/docs.md']],
  [
    'docs/**/*.md',
    ['docs/README.md', 'docs/mona/hello-world.md', 'docs/a/markdown/file.md'],
    ['docs/a.txt']
  ],
  ['**/docs/**', ['docs/hello.md', 'dir/docs/my-file.txt', 'space/docs/plan/space.doc'], ['doc/x']],
  ['**/README.md', ['README.md', 'js/README.md'], ['README.mdx']],
  ['**/*src/**', ['a/src/app.js', 'my-src/code/js/app.js'], ['src.js']],
  ['**/*-post.md', ['my-post.md', 'path/their-post.md'], ['post.md']],
  [
    '**/migrate-*.sql',
    ['migrate-10909.sql', 'db/migrate-v1.0.sql', 'db/sept/migrate-v1.sql'],
    ['migrate.sql']
  ],
  ['Octoc?t.md', ['Octocat.md', 'Octoct.md'], ['Octo/t.md']],
  ['[CB]at.md', ['Cat.md', 'Bat.md'], ['Rat.md']],
  ['[1-2]00.md', ['100.md', '200.md'], ['300.md']],
  ['Z+.md', ['Z.md', 'ZZZ.md'], ['.md']]
]

describe('paths, as GitHub filters them', () => {
  for (const [pattern, matching, other] of CHEAT_SHEET) {
    it(`${pattern} matches ${matching.join(', ')}${other.length > 0 ? `, not ${other.join(', ')}` : ''}`, () => {
      const matches = inScope({ paths: [pattern] })
      expect(matching.filter(p => !matches(p))).toEqual([])
      expect(other.filter(matches)).toEqual([])
    })
  }

  it('lets a later "!" pattern take back a file, and a later pattern put it back: the last match decides', () => {
    const matches = inScope({
      paths: ['sub-project/**', '!sub-project/docs/**', 'sub-project/docs/api.md']
    })
    expect(
      ['sub-project/a.ts', 'sub-project/docs/x.md', 'sub-project/docs/api.md'].map(matches)
    ).toEqual([true, false, true])
  })

  it('paths-ignore leaves out what it matches, and keeps the rest', () => {
    const matches = inScope({ pathsIgnore: ['docs/**', '**.md'] })
    expect(['docs/a.ts', 'README.md', 'src/a.ts'].map(matches)).toEqual([false, false, true])
  })

  it('names what is wrong with a pattern GitHub would not take', () => {
    expect(patternProblem('src/**')).toBeUndefined()
    expect(patternProblem('/src/**')).toMatch(/starts with "\/"/)
    expect(patternProblem('src/[a-')).toMatch(/without its "\]"/)
    expect(patternProblem('!')).toMatch(/matches no path/)
    expect(patternProblem('+x')).toMatch(/no plain character before it/)
  })

  it('finds the positive patterns that match no file of the repository', () => {
    expect(
      unmatchedPatterns({ paths: ['src/**', 'servces/**', '!nothing/**'] }, ['src/a.ts'])
    ).toEqual(['servces/**'])
  })

  it('is rejected in a rubric with its line when GitHub would reject it, and when both lists are given', () => {
    const parsed = parseRubric({
      text: "---\npaths: ['/src/**']\npaths-ignore: [docs/**]\n---\n## Criteria\n- a: A\n",
      path: '.github/rubrics/x.md'
    })
    const problems = parsed.ok ? [] : parsed.problem
    expect(problems.map(p => [p.line, p.rule])).toEqual([
      [2, 'paths'],
      [3, 'paths']
    ])
    expect(problems[0]?.message).toMatch(/^paths: the pattern "\/src\/\*\*" starts with "\/"/)
    expect(problems[1]?.message).toMatch(/^give paths or paths-ignore, not both/)
  })
})

const rubricOf = (front: string): Rubric => {
  const parsed = parseRubric({ text: `---\n${front}\n---\n## Criteria\n- a: A\n`, path: 'r.md' })
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problem))
  return parsed.value
}
const file = (repoPath: string, front: string, main = false): RubricFile => ({
  repoPath,
  main,
  rubric: rubricOf(front)
})

describe('which rubrics apply to a pull request', () => {
  const files = [
    file('.github/rubric.md', 'title: All', true),
    file('.github/rubrics/payments.md', 'paths: [services/payments/**]'),
    file('.github/rubrics/docs.md', 'name: Docs site\npaths: [docs/**]')
  ]

  it('names the check runs, applies the unscoped rubric always and a scoped one by its paths', () => {
    const plans = planRubrics(files, ['services/payments/a.ts'], 'rubric-council')
    expect(plans.map(p => [p.checkName, p.applicable])).toEqual([
      ['rubric-council', true],
      ['rubric-council / payments', true],
      ['rubric-council / Docs site', false]
    ])
  })

  it('counts a file outside a rubric as seen only when another judged rubric was shown it', () => {
    const plans = planRubrics(files.slice(1), ['services/payments/a.ts', 'docs/x.md'], 'rc')
    const [payments, docs] = plans
    expect(payments?.scope?.inScope('services/payments/a.ts')).toBe(true)
    expect(payments?.scope?.inScope('docs/x.md')).toBe(false)
    // Matching docs/** is not enough: only what the docs rubric's judges were shown counts.
    expect(payments?.scope?.shownElsewhere).toBeUndefined()
    if (payments === undefined || docs === undefined) throw new Error('two plans')
    const [withShown] = withShownElsewhere(
      plans,
      new Map([
        [payments, new Set(['services/payments/a.ts'])],
        [docs, new Set(['docs/x.md'])]
      ])
    )
    expect(withShown?.scope?.shownElsewhere?.('docs/x.md')).toBe('rc / Docs site')
    expect(withShown?.scope?.shownElsewhere?.('services/payments/a.ts')).toBeUndefined()
    const [notShown] = withShownElsewhere(plans, new Map([[docs, new Set<string>()]]))
    expect(notShown?.scope?.shownElsewhere?.('docs/x.md')).toBeUndefined()
  })

  it('asks the judges of applicable, valid, first-named rubrics that have criteria or dimensions only', () => {
    const gatesOnly: RubricFile = {
      repoPath: '.github/rubrics/lint.md',
      main: false,
      rubric: (() => {
        const parsed = parseRubric({ text: '## Gates\n- `true`\n', path: 'lint.md' })
        if (!parsed.ok) throw new Error(JSON.stringify(parsed.problem))
        return parsed.value
      })()
    }
    const plans = planRubrics([...files, gatesOnly], ['services/payments/a.ts'], 'rc')
    expect(judgedPlans(plans).map(p => p.checkName)).toEqual(['rc', 'rc / payments'])
  })

  it('applies a rubric whose own file the pull request changes, and every rubric when the change is unknown', () => {
    expect(planRubrics(files, ['.github/rubrics/docs.md'], 'rc')[2]?.applicable).toBe(true)
    expect(planRubrics(files, undefined, 'rc').every(p => p.applicable)).toBe(true)
  })

  it('marks the second rubric of one name as a duplicate of the first', () => {
    const plans = planRubrics(
      [...files, file('.github/rubrics/zz.md', 'name: payments\npaths: [x/**]')],
      [],
      'rc'
    )
    expect(plans.at(-1)).toMatchObject({
      duplicateOf: '.github/rubrics/payments.md',
      applicable: true
    })
  })

  it('says what a scope is about, shortened', () => {
    expect(scopeText({ paths: ['a/**', 'b/**'] })).toBe('paths a/**, b/**')
    expect(scopeText({ pathsIgnore: ['docs/**'] })).toBe('anything but paths-ignore docs/**')
    expect(scopeText({ paths: ['aaaa', 'bbbb', 'cccc'] }, 10)).toBe('paths aaaa, bbbb, and 1 more')
  })
})
