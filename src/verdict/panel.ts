import type { CouncilOutcome, JudgeAnswer } from '../council/types.js'
import type { Criterion } from '../rubric/types.js'
import { BLOCKING_SEVERITIES, type JudgedFinding, type Vote } from './types.js'

/** One answer of the council, labelled as the report shows it. */
export interface Labelled {
  readonly label: string
  readonly answer: JudgeAnswer
}

/** A member of the council and its valid answers, one per sample. */
export interface Judge {
  readonly judge: string
  readonly samples: readonly Labelled[]
}

/** The valid answers, by judge; tie-break answers apart; and how many regular answers count. */
export interface Panel {
  readonly judges: readonly Judge[]
  readonly tieBreaks: readonly Labelled[]
  readonly answers: number
}

export function panelOf(council: CouncilOutcome | undefined): Panel {
  const runs = council?.runs ?? []
  const sampled = runs.some(r => r.sample > 1 && r.tieBreak !== true)
  const judges = new Map<string, Labelled[]>()
  const tieBreaks: Labelled[] = []
  for (const run of runs) {
    if (run.status !== 'ok') continue
    if (run.tieBreak === true) {
      tieBreaks.push({ label: `${run.judge} (tie-break)`, answer: run.answer })
      continue
    }
    const samples = judges.get(run.judge) ?? []
    samples.push({ label: sampled ? `${run.judge}#${run.sample}` : run.judge, answer: run.answer })
    judges.set(run.judge, samples)
  }
  return {
    judges: [...judges].map(([judge, samples]) => ({ judge, samples })),
    tieBreaks,
    answers: [...judges.values()].reduce((sum, samples) => sum + samples.length, 0)
  }
}

/** true or false by a strict majority of `votes`; undefined on a tie (or no votes). */
export function majority(votes: readonly boolean[]): boolean | undefined {
  const yes = votes.filter(Boolean).length
  const no = votes.length - yes
  return yes > no ? true : no > yes ? false : undefined
}

/** What each judge said of the whole change, each by the majority of its own samples. */
export interface PanelVotes {
  /** Per judge: reported a blocking finding; undefined where its samples tied. */
  readonly blocking: readonly (boolean | undefined)[]
  /** Judges whose samples, by a majority, recommend TERMINATE. */
  readonly terminating: number
  /** Every finding, with the label of the answer that reported it. */
  readonly findings: readonly JudgedFinding[]
}

export function panelVotes(panel: Panel): PanelVotes {
  const labelled = [...panel.judges.flatMap(j => j.samples), ...panel.tieBreaks]
  return {
    blocking: panel.judges.map(j => majority(j.samples.map(s => blocks(s.answer)))),
    terminating: panel.judges.filter(
      j => majority(j.samples.map(s => s.answer.verdict === 'TERMINATE')) === true
    ).length,
    findings: labelled.flatMap(({ label, answer }) =>
      answer.findings.map(f => ({ ...f, judge: label }))
    )
  }
}

function blocks(answer: JudgeAnswer): boolean {
  return answer.findings.some(f => BLOCKING_SEVERITIES.includes(f.severity))
}

export function voteOf(criterion: Criterion, { label, answer }: Labelled): Vote | undefined {
  const grade = answer.criteria.find(g => g.id === criterion.id)
  if (!grade) return undefined
  return {
    judge: label,
    reasoning: grade.reasoning,
    ...(grade.verdict !== undefined && { verdict: grade.verdict }),
    ...(grade.score !== undefined && { score: grade.score })
  }
}
