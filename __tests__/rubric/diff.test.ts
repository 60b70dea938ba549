import { describe, expect, it } from 'vitest'
import { diffRubrics } from '../../src/rubric/diff.js'
import { lines, parse } from '../helpers/rubric.js'

const BASE = lines(
  '---',
  'thresholds: { pass: 0.8, fail: 0.6 }',
  'council: { models: [openai:gpt-5-mini], quorum: 1 }',
  'criteria: [{ id: ranked, weight: 2, required_min_score: 7, score_ranges: { 0: Unranked, 7: Ranked } }]',
  '---',
  '## Gates',
  '- `npm test`',
  '- `npm run lint`',
  '## Criteria',
  '- ranked: Results are ranked by intent',
  '- errors: Errors are handled',
  '## Nice to Have',
  '- docs: Documented'
)

const diff = (head: string) => diffRubrics(parse(BASE), parse(head))

describe('the semantic rubric diff', () => {
  it('is empty for the same rubric', () => {
    expect(diff(BASE)).toEqual({ changes: [], weakened: false })
  })

  it('names added, removed and reworded criteria, and flags a removed must-have as weakening', () => {
    const result = diff(
      BASE.replace('- errors: Errors are handled\n', '')
        .replace('Documented', 'Documented in the README')
        .concat('- new: A new must-have\n')
    )
    expect(result.changes).toEqual([
      { text: 'must-have "errors" removed', weakens: true },
      {
        text: 'criterion "docs" reworded: "Documented" → "Documented in the README"',
        weakens: false
      },
      { text: 'nice-to-have "new" added', weakens: false }
    ])
    expect(result.weakened).toBe(true)
  })

  it('flags a demoted must-have, a removed gate, lowered thresholds and a lowered minimum score', () => {
    const head = BASE.replace(
      '- errors: Errors are handled\n## Nice to Have\n',
      '## Nice to Have\n- errors: Errors are handled\n'
    )
      .replace('- `npm run lint`\n', '')
      .replace('pass: 0.8, fail: 0.6', 'pass: 0.7, fail: 0.6')
      .replace('required_min_score: 7', 'required_min_score: 5')
    expect(diff(head).changes).toEqual([
      { text: 'criterion "ranked" required_min_score 7 → 5', weakens: true },
      { text: 'criterion "errors" demoted to nice-to-have', weakens: true },
      { text: 'gate `npm run lint` removed', weakens: true },
      { text: 'thresholds.pass 0.8 → 0.7', weakens: true }
    ])
  })

  it('reports strengthening and neutral changes without flagging them', () => {
    const head = BASE.replace('pass: 0.8', 'pass: 0.9')
      .replace('[openai:gpt-5-mini]', '[openai:gpt-5-mini, anthropic:claude-sonnet-4-5]')
      .replace('weight: 2', 'weight: 3')
      .replace('- `npm test`\n', '- `npm test`\n- `npm audit`\n')
    const result = diff(head)
    expect(result.changes).toEqual([
      { text: 'criterion "ranked" weight 2 → 3', weakens: false },
      { text: 'gate `npm audit` added', weakens: false },
      { text: 'thresholds.pass 0.8 → 0.9', weakens: false },
      {
        text: 'council.models openai:gpt-5-mini → openai:gpt-5-mini, anthropic:claude-sonnet-4-5',
        weakens: false
      }
    ])
    expect(result.weakened).toBe(false)
  })

  it('flags a lowered quorum, blocking any → majority, excluding more files, and no ceiling', () => {
    const strict = BASE.replace('thresholds:', 'blocking: any\nthresholds:')
    const head = strict
      .replace('blocking: any', 'blocking: majority\naccuracy_ceiling: false\nexclude: [src/**]')
      .replace('quorum: 1', 'quorum: 1')
    const result = diffRubrics(parse(strict), parse(head))
    expect(result.changes.map(c => [c.text, c.weakens])).toEqual([
      ['blocking any → majority', true],
      ['accuracy ceiling turned off', true],
      ['exclude none → src/**', true]
    ])
  })

  it('names a change of gate options, council timeout, reserves, extra votes or score weights, and flags the loosening ones', () => {
    const change = (from: string, to: string) =>
      diffRubrics(
        parse(BASE.replace('---\n', `---\n${from}\n`)),
        parse(BASE.replace('---\n', `---\n${to}\n`))
      ).changes.map(c => [c.text, c.weakens])
    expect(change('gates: { timeout: 600 }', 'gates: { timeout: 30 }')).toEqual([
      ['gate `npm test` timeout 600 → 30', false],
      ['gate `npm run lint` timeout 600 → 30', false],
      ['gates.timeout 600 → 30', false]
    ])
    expect(change('gates: { parallel: false }', 'gates: { parallel: 2 }')).toEqual([
      ['gates.parallel 1 → 2', false]
    ])
    // Another directory runs other commands under the same names.
    expect(
      change('gates: { working_directory: . }', 'gates: { working_directory: vendor/x }')
    ).toEqual([['gates.working_directory . → vendor/x', true]])
    expect(
      change(
        'score_weights: { dimensions: 0.5, criteria: 0.5 }',
        'score_weights: { dimensions: 0.9, criteria: 0.1 }'
      )
    ).toEqual([['score_weights dimensions 0.5, criteria 0.5 → dimensions 0.9, criteria 0.1', true]])
    const council = (extra: string) => BASE.replace('quorum: 1 }', `quorum: 1${extra} }`)
    const councilChange = (from: string, to: string) =>
      diffRubrics(parse(council(from)), parse(council(to))).changes.map(c => [c.text, c.weakens])
    expect(councilChange(', timeout: 120', ', timeout: 60')).toEqual([
      ['council.timeout 120 → 60', false]
    ])
    // Fewer extra votes leave a lead of one unconfirmed; more can settle a tie either way.
    expect(councilChange(', max_extra_votes: 2', ', max_extra_votes: 1')).toEqual([
      ['council.max_extra_votes 2 → 1', true]
    ])
    expect(councilChange(', max_extra_votes: 0', ', max_extra_votes: 2')).toEqual([
      ['council.max_extra_votes 0 → 2', true]
    ])
    // The deprecated name is the same setting: the default is 2.
    expect(councilChange('', ', tie_breaks: 0')).toEqual([['council.max_extra_votes 2 → 0', true]])
    // Another reserve casts the deciding votes: a pull request's author may pick a gullible one.
    expect(councilChange('', ', reserve: [openai:gpt-5.4]')).toEqual([
      ['council.reserve none → openai:gpt-5.4', true]
    ])
    expect(councilChange(', reserve: [openai:gpt-5.4]', '')).toEqual([
      ['council.reserve openai:gpt-5.4 → none', true]
    ])
  })

  it('names a changed reasoning effort, the council’s or a member’s, as no weakening', () => {
    const withCouncil = (text: string) => BASE.replace('quorum: 1 }', `quorum: 1${text} }`)
    const withMember = (effort: string) =>
      BASE.replace(
        'models: [openai:gpt-5-mini]',
        `models: [{ model: openai:gpt-5-mini, reasoning: ${effort} }]`
      )
    const changes = (before: string, after: string) =>
      diffRubrics(parse(before), parse(after)).changes.map(c => [c.text, c.weakens])
    expect(changes(BASE, withCouncil(', reasoning: low'))).toEqual([
      ['council.reasoning none → low', false]
    ])
    expect(changes(withMember('high'), withMember('low'))).toEqual([
      ['council.models "openai:gpt-5-mini" reasoning high → low', false]
    ])
    // The same member in the other form: only its effort is new.
    expect(changes(BASE, withMember('medium'))).toEqual([
      ['council.models "openai:gpt-5-mini" reasoning none → medium', false]
    ])
  })

  it('says when only wording outside the rules changed', () => {
    expect(diff(BASE.replace('## Gates', '# Title\n\n## Gates')).changes).toEqual([
      { text: 'wording or notes changed; no rule changed', weakens: false }
    ])
  })
})
