/**
 * The grounding part of `npm run simulate` (docs/verdict.md#grounded-findings): judges that invent
 * a finding's location at a rate q, and what grounding does to false FAILs and false PASSes.
 *
 * The model: half the pull requests carry one real blocking defect, at a line a shown hunk holds.
 * Each of three judges finds it with probability 0.8, and then names its location wrongly with
 * probability q; on any pull request it also reports, with probability q, a critical finding at a
 * location it invented (a file never shown, or a line outside every hunk). Every must-have passes,
 * so only `blocking_issue` (a majority of judges) can fail. Each pull request goes through the
 * real `decide()`, with the shown locations and without them.
 */
import type { Finding, JudgeRun } from '../src/council/types.js'
import { parseRubric } from '../src/rubric/parse.js'
import { decide } from '../src/verdict/decide.js'
import type { ShownLocations } from '../src/verdict/grounding.js'

const PULL_REQUESTS = 2000
export const INVENTION_RATES = [0, 0.05, 0.1, 0.2, 0.3] as const
const RECALL = 0.8
const SHOWN: ShownLocations = {
  files: [{ path: 'src/a.ts', names: ['src/a.ts'], lines: [[10, 30]] }],
  changed: ['src/a.ts'],
  gates: []
}
const REAL: Finding = {
  severity: 'critical',
  title: 'real',
  path: 'src/a.ts',
  line: 12,
  evidence: ''
}
const INVENTED: readonly Finding[] = [
  { severity: 'critical', title: 'invented', path: 'src/invented.ts', line: 40, evidence: '' },
  { severity: 'critical', title: 'invented', path: 'src/a.ts', line: 400, evidence: '' }
]

export interface GroundingRow {
  readonly q: number
  readonly falseFail: { readonly without: number; readonly with: number }
  readonly falsePass: { readonly without: number; readonly with: number }
}

export function simulateGrounding(next: () => number): GroundingRow[] {
  const parsed = parseRubric({ text: '## Criteria\n- a: A\n', path: 'rubric.md', kind: 'file' })
  if (!parsed.ok) throw new Error('the simulated rubric does not parse')
  const rubric = parsed.value
  const invented = (): Finding => INVENTED[Math.floor(next() * INVENTED.length)] ?? REAL
  return INVENTION_RATES.map(q => {
    const tally = { good: 0, bad: 0, failGood: [0, 0], passBad: [0, 0] }
    for (let i = 0; i < PULL_REQUESTS; i++) {
      const defect = next() < 0.5
      const runs: JudgeRun[] = ['x', 'y', 'z'].map(judge => {
        const findings: Finding[] = []
        if (defect && next() < RECALL) findings.push(next() < q ? invented() : REAL)
        if (next() < q) findings.push(invented())
        const criteria = [{ id: 'a', verdict: 'PASS' as const, reasoning: '' }]
        const answer = {
          findings,
          criteria,
          dimensions: [],
          verdict: 'ACCEPT' as const,
          feedback: ''
        }
        return { judge, sample: 1, latencyMs: 0, status: 'ok', answer }
      })
      const council = { quorum: 2, runs }
      const verdicts = [undefined, SHOWN].map(
        shown =>
          decide({ rubric, gates: [], council, coverage: 1, ...(shown && { shown }) }).verdict
      )
      if (defect) tally.bad++
      else tally.good++
      verdicts.forEach((verdict, k) => {
        if (!defect && verdict === 'FAIL') tally.failGood[k] = (tally.failGood[k] ?? 0) + 1
        if (defect && verdict === 'PASS') tally.passBad[k] = (tally.passBad[k] ?? 0) + 1
      })
    }
    const share = (n: number | undefined, of: number) => (n ?? 0) / of
    return {
      q,
      falseFail: {
        without: share(tally.failGood[0], tally.good),
        with: share(tally.failGood[1], tally.good)
      },
      falsePass: {
        without: share(tally.passBad[0], tally.bad),
        with: share(tally.passBad[1], tally.bad)
      }
    }
  })
}

export function groundingTable(rows: readonly GroundingRow[]): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`
  return [
    '| invented locations q | false FAIL, without grounding | false FAIL, grounded | false PASS, without grounding | false PASS, grounded |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map(
      r =>
        `| ${r.q} | ${pct(r.falseFail.without)} | ${pct(r.falseFail.with)} | ${pct(r.falsePass.without)} | ${pct(r.falsePass.with)} |`
    )
  ].join('\n')
}
