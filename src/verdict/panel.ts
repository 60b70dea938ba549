import type { CouncilOutcome, JudgeAnswer } from '../council/types.js'
import type { Criterion } from '../rubric/types.js'
import type { Finding } from '../council/types.js'
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

/** An extra vote's answer: who gave it, and the must-haves it counts on. */
export interface ExtraAnswer extends Labelled {
  readonly judge: string
  readonly criteria: readonly string[]
}

/** The valid answers, by judge; extra votes apart; and how many regular answers count. */
export interface Panel {
  readonly judges: readonly Judge[]
  readonly extras: readonly ExtraAnswer[]
  readonly answers: number
}

export function panelOf(council: CouncilOutcome | undefined): Panel {
  const runs = council?.runs ?? []
  const sampled = runs.some(r => r.sample > 1 && r.extra === undefined)
  const judges = new Map<string, Labelled[]>()
  const extras: ExtraAnswer[] = []
  for (const run of runs) {
    if (run.status !== 'ok') continue
    if (run.extra !== undefined) {
      extras.push({
        label: `${run.judge} (${run.extra.reserve ? 'reserve' : 'extra vote'})`,
        judge: run.judge,
        criteria: run.extra.criteria,
        answer: run.answer
      })
      continue
    }
    const samples = judges.get(run.judge) ?? []
    samples.push({ label: sampled ? `${run.judge}#${run.sample}` : run.judge, answer: run.answer })
    judges.set(run.judge, samples)
  }
  return {
    judges: [...judges].map(([judge, samples]) => ({ judge, samples })),
    extras,
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

/**
 * `grounded` says whether a finding may count toward blocking (src/verdict/grounding.ts); one that
 * may not is kept, marked `notInEvidence`.
 */
export function panelVotes(
  panel: Panel,
  grounded: (finding: Finding) => boolean = () => true
): PanelVotes {
  const labelled = [...panel.judges.flatMap(j => j.samples), ...panel.extras]
  return {
    blocking: panel.judges.map(j => majority(j.samples.map(s => blocks(s.answer, grounded)))),
    terminating: panel.judges.filter(
      j => majority(j.samples.map(s => s.answer.verdict === 'TERMINATE')) === true
    ).length,
    findings: labelled.flatMap(({ label, answer }) =>
      answer.findings.map(f => ({
        ...f,
        judge: label,
        ...(!grounded(f) && { notInEvidence: true as const })
      }))
    )
  }
}

/**
 * The extra votes that count on `criterion`, in the order they were cast: each from an answer asked
 * for it, by a judge that has not voted on it otherwise (no member, no earlier extra vote of the
 * same judge). A vote that repeats a voter never counts, whatever the runs say.
 */
export function extraVotesOn(criterion: Criterion, panel: Panel): Vote[] {
  const voted = new Set(panel.judges.map(j => j.judge))
  return panel.extras.flatMap(extra => {
    if (!extra.criteria.includes(criterion.id) || voted.has(extra.judge)) return []
    const vote = voteOf(criterion, extra)
    if (vote?.verdict === undefined) return []
    voted.add(extra.judge)
    return [vote]
  })
}

function blocks(answer: JudgeAnswer, grounded: (finding: Finding) => boolean): boolean {
  return answer.findings.some(f => BLOCKING_SEVERITIES.includes(f.severity) && grounded(f))
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
