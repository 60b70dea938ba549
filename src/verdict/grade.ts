import type { Criterion, Dimension } from '../rubric/types.js'
import { extraVotesOn, majority, voteOf, type Labelled, type Panel } from './panel.js'
import { medianOf, spreadOf } from './score.js'
import type { CriterionResult, DimensionResult, Tally, Vote } from './types.js'

/**
 * A checklist criterion's votes: each judge's (the majority of its samples; a judge whose samples
 * tie abstains), then each extra vote that counts on it.
 */
function tallyOf(criterion: Criterion, panel: Panel, extra: readonly Vote[]): Tally {
  const tally = { pass: 0, fail: 0, abstain: 0 }
  for (const judge of panel.judges) {
    const verdicts = judge.samples.flatMap(s => {
      const verdict = voteOf(criterion, s)?.verdict
      return verdict === undefined ? [] : [verdict === 'PASS']
    })
    if (verdicts.length === 0) continue
    const vote = majority(verdicts)
    if (vote === true) tally.pass++
    else if (vote === false) tally.fail++
    else tally.abstain++
  }
  for (const vote of extra) {
    if (vote.verdict === 'PASS') tally.pass++
    else tally.fail++
  }
  return tally
}

export function gradeCriterion(criterion: Criterion, panel: Panel): CriterionResult {
  const votes = panel.judges.flatMap(j =>
    j.samples.flatMap(s => {
      const vote = voteOf(criterion, s)
      return vote ? [vote] : []
    })
  )
  const base = {
    id: criterion.id,
    description: criterion.description,
    required: criterion.required,
    weight: criterion.weight,
    votes,
    ...(criterion.requiredMinScore !== undefined && {
      requiredMinScore: criterion.requiredMinScore
    })
  }

  if (criterion.scoreRanges) {
    // Each judge's score is the median of its samples'; the criterion's, the median of those.
    const judgeScores = panel.judges.flatMap(j => {
      const own = medianOf(j.samples.flatMap(s => voteOf(criterion, s)?.score ?? []))
      return own === null ? [] : [own]
    })
    const median = medianOf(judgeScores)
    if (median === null) return { ...base, kind: 'score', status: 'UNGRADED', score: null }
    const min = criterion.requiredMinScore
    const status = min === undefined ? 'SCORED' : median < min ? 'FAIL' : 'PASS'
    const spread = spreadOf(judgeScores) ?? 0
    return { ...base, kind: 'score', status, score: median / 10, median, spread }
  }

  // Extra votes were asked for must-haves only; they count nowhere else.
  const extraVotes = criterion.required ? extraVotesOn(criterion, panel) : []
  const tally = tallyOf(criterion, panel, extraVotes)
  if (tally.pass + tally.fail + tally.abstain === 0)
    return { ...base, kind: 'checklist', status: 'UNGRADED', score: null, tally }
  const cast = tally.pass + tally.fail
  const status: 'PASS' | 'FAIL' | 'SPLIT' =
    tally.pass * 2 > cast ? 'PASS' : tally.fail * 2 > cast ? 'FAIL' : 'SPLIT'
  // Disagreement enters the confidence, never the score.
  const score = status === 'PASS' ? 1 : status === 'FAIL' ? 0 : 0.5
  return {
    ...base,
    kind: 'checklist',
    status,
    score,
    tally,
    ...(extraVotes.length > 0 && { extraVotes })
  }
}

/** A criterion with its votes, but no status, score or median drawn from them. */
export function withoutGrade(c: CriterionResult): CriterionResult {
  return {
    id: c.id,
    description: c.description,
    required: c.required,
    weight: c.weight,
    kind: c.kind,
    status: 'UNGRADED',
    score: null,
    ...(c.requiredMinScore !== undefined && { requiredMinScore: c.requiredMinScore }),
    votes: c.votes
  }
}

export function gradeDimension(dimension: Dimension, panel: Panel): DimensionResult {
  const scoresOf = (samples: readonly Labelled[]) =>
    samples.flatMap(({ label, answer }) => {
      const grade = answer.dimensions.find(g => g.name === dimension.name)
      return grade ? [{ judge: label, score: grade.score, reasoning: grade.reasoning }] : []
    })
  // Each judge's score is the median of its samples'; the dimension's, the median of those.
  const judgeScores = panel.judges.flatMap(j => {
    const own = medianOf(scoresOf(j.samples).map(s => s.score))
    return own === null ? [] : [own]
  })
  return {
    name: dimension.name,
    weight: dimension.weight,
    normalisedWeight: dimension.normalisedWeight,
    median: medianOf(judgeScores),
    scores: panel.judges.flatMap(j => scoresOf(j.samples)),
    spread: spreadOf(judgeScores)
  }
}
