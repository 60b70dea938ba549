import { buildCriteria } from './build-criteria.js'
import { patternProblem } from './paths.js'
import { buildDimensions } from './build-dimensions.js'
import { buildGateOptions, buildGates } from './build-gates.js'
import {
  DEFAULT_MAX_EXTRA_VOTES,
  DEFAULT_MIN_COVERAGE,
  DEFAULT_SAMPLES,
  DEFAULT_THRESHOLDS,
  FOCUS_TEXT
} from './defaults.js'
import type { Locate, RubricIssue, RubricRule } from './errors.js'
import type { CheckedFrontMatter } from './front-matter.js'
import { SECTION_HEADINGS, type LineProblem, type ParsedBody } from './markdown.js'
import type { Rubric, RubricSource, Upstream } from './types.js'
import type { Path } from './zod-issues.js'

export interface BuildInput {
  readonly source: RubricSource
  readonly text: string
  readonly hash: string
  readonly frontMatter: CheckedFrontMatter
  readonly body: ParsedBody | undefined
  /** Problems found by line before building (YAML syntax); the body's own are in `body`. */
  readonly lineProblems: readonly LineProblem[]
  readonly locate: Locate
}

/** Assembles the rubric and checks every rule that spans fields; problems are returned, not thrown. */
export function buildRubric(input: BuildInput): { rubric: Rubric; issues: RubricIssue[] } {
  const { frontMatter, body, source } = input
  const fm = frontMatter.values
  /** Whether any of these fields failed on its own (its error is reported; rules using it are not checked). */
  const failed = (...fields: string[]): boolean =>
    fields.some(field => frontMatter.invalidFields.has(field))
  const issues: RubricIssue[] = []
  const atLine = (
    line: number,
    column: number | undefined,
    rule: RubricRule,
    message: string
  ): void => {
    issues.push({ file: source.path, line, ...(column !== undefined && { column }), rule, message })
  }
  const atPath = (
    path: Path,
    rule: RubricRule,
    message: string,
    at: 'key' | 'value' = 'value'
  ): void => {
    const { line, column } = input.locate(path, at)
    atLine(line, column, rule, message)
  }

  for (const problem of frontMatter.problems)
    atPath(problem.path, problem.rule, problem.message, problem.at)
  for (const problem of [...input.lineProblems, ...(body?.problems ?? [])])
    atLine(problem.line, problem.column, problem.rule, problem.message)

  const gateOptions = buildGateOptions(fm.gates)
  const gates = buildGates(fm.gates, body?.items.gates ?? [], gateOptions, input.locate, atLine)
  const criteria = buildCriteria(frontMatter.criteria, body, input.locate, atPath, atLine)
  const dimensions = buildDimensions(fm.dimensions, criteria.length > 0, atPath, failed)

  const thresholds = {
    pass: fm.thresholds?.pass ?? DEFAULT_THRESHOLDS.pass,
    fail: fm.thresholds?.fail ?? DEFAULT_THRESHOLDS.fail,
    confidence: fm.thresholds?.confidence ?? DEFAULT_THRESHOLDS.confidence
  }
  if (thresholds.fail > thresholds.pass && !failed('thresholds.pass', 'thresholds.fail')) {
    atPath(
      fm.thresholds?.fail !== undefined ? ['thresholds', 'fail'] : ['thresholds'],
      'threshold',
      `thresholds.fail (${thresholds.fail}) must not exceed thresholds.pass (${thresholds.pass})`
    )
  }

  const hasAccuracy = dimensions.some(d => d.name === 'accuracy')
  if (fm.accuracy_ceiling === true && !hasAccuracy) {
    atPath(
      ['accuracy_ceiling'],
      'dimension',
      'accuracy_ceiling needs an "accuracy" dimension; add one or remove accuracy_ceiling'
    )
  }

  const members = fm.council?.models ?? []
  const reserves = fm.council?.reserve ?? []
  const modelOf = (member: (typeof members)[number]): string =>
    typeof member === 'string' ? member : member.model
  const models = members.map(modelOf)
  const reserve = reserves.map(modelOf)
  const named = [...members, ...reserves].flatMap(member =>
    typeof member === 'string' || member.reasoning === undefined
      ? []
      : [[member.model, member.reasoning] as const]
  )
  const seenModels = new Set<string>()
  models.forEach((model, i) => {
    if (seenModels.has(model)) {
      atPath(
        ['council', 'models', i],
        'council',
        `council.models lists "${model}" twice; use council.samples to ask a judge more than once`
      )
    }
    seenModels.add(model)
  })
  const seenReserves = new Set<string>()
  reserve.forEach((model, i) => {
    // A reserve's vote counts only where it has not voted: a member, or a reserve named twice,
    // would vote twice on one must-have.
    if (seenModels.has(model)) {
      atPath(
        ['council', 'reserve', i],
        'council',
        `council.reserve names "${model}", a member of council.models; a reserve must be another model, whose vote is independent of the members'`
      )
    } else if (seenReserves.has(model)) {
      atPath(['council', 'reserve', i], 'council', `council.reserve lists "${model}" twice`)
    }
    seenReserves.add(model)
  })
  const tieBreaks = fm.council?.tie_breaks
  if (tieBreaks !== undefined && fm.council?.max_extra_votes !== undefined) {
    atPath(
      ['council', 'tie_breaks'],
      'council',
      `council.tie_breaks is the old name of council.max_extra_votes; give only max_extra_votes (got tie_breaks: ${tieBreaks} and max_extra_votes: ${fm.council.max_extra_votes})`,
      'key'
    )
  }
  const samples = fm.council?.samples
  const quorum = fm.council?.quorum
  const perModel = samples ?? DEFAULT_SAMPLES
  const answers = models.length * perModel
  if (
    quorum !== undefined &&
    models.length > 0 &&
    quorum > answers &&
    !failed('council.models', 'council.samples')
  ) {
    atPath(
      ['council', 'quorum'],
      'council',
      `council.quorum (${quorum}) exceeds the ${answers} answers the council can give ` +
        `(${models.length} model${models.length === 1 ? '' : 's'} × ${perModel} sample${perModel === 1 ? '' : 's'})`
    )
  }

  const scoreWeights = {
    dimensions: fm.score_weights?.dimensions ?? 1,
    criteria: fm.score_weights?.criteria ?? 1
  }
  if (
    fm.score_weights &&
    scoreWeights.dimensions === 0 &&
    scoreWeights.criteria === 0 &&
    !failed('score_weights.dimensions', 'score_weights.criteria')
  ) {
    atPath(['score_weights'], 'weight', 'score_weights must not all be 0')
  }

  if (fm.paths !== undefined && fm['paths-ignore'] !== undefined) {
    atPath(
      ['paths-ignore'],
      'paths',
      'give paths or paths-ignore, not both (as GitHub’s on.pull_request filters); to leave files out of paths, add them to it with a leading "!"',
      'key'
    )
  }
  for (const key of ['paths', 'paths-ignore'] as const) {
    fm[key]?.forEach((pattern, i) => {
      const problem = patternProblem(pattern)
      if (problem !== undefined) atPath([key, i], 'paths', `${key}: ${problem}`)
    })
  }

  const upstream = extendsOf(fm.extends, input.locate)
  // A rubric that extends another may only add to it, or only name it.
  if (
    gates.length === 0 &&
    criteria.length === 0 &&
    dimensions.length === 0 &&
    upstream.length === 0 &&
    issues.length === 0
  ) {
    atLine(
      1,
      undefined,
      'empty-rubric',
      'the rubric has no gates, no criteria and no dimensions, so it would pass everything; ' +
        `add a "## ${SECTION_HEADINGS.gates}" or "## ${SECTION_HEADINGS.must}" section`
    )
  }

  const notes = [fm.notes?.trim(), body?.notes].filter(Boolean).join('\n\n')
  const focusAreas = fm.focus === undefined ? [] : Array.isArray(fm.focus) ? fm.focus : [fm.focus]
  const title = fm.title ?? body?.title

  const rubric: Rubric = {
    source,
    hash: input.hash,
    text: input.text,
    ...(title !== undefined && { title }),
    preamble: body?.preamble ?? '',
    gates,
    gateOptions,
    criteria,
    notes,
    dimensions,
    accuracyCeiling: hasAccuracy && fm.accuracy_ceiling !== false,
    focus: [...new Set(focusAreas)].map(area => ({ area, ...FOCUS_TEXT[area] })),
    thresholds,
    council: {
      models,
      ...(fm.council?.reasoning !== undefined && { reasoning: fm.council.reasoning }),
      ...(named.length > 0 && { memberReasoning: Object.fromEntries(named) }),
      ...(samples !== undefined && { samples }),
      ...(quorum !== undefined && { quorum }),
      ...(fm.council?.timeout !== undefined && { timeout: fm.council.timeout }),
      reserve,
      maxExtraVotes: fm.council?.max_extra_votes ?? tieBreaks ?? DEFAULT_MAX_EXTRA_VOTES
    },
    blocking: fm.blocking ?? 'majority',
    scoreWeights,
    minCoverage: fm.min_coverage ?? DEFAULT_MIN_COVERAGE,
    exclude: fm.exclude ?? [],
    extends: upstream,
    ...(fm.name !== undefined && { name: fm.name }),
    scope: {
      ...(fm.paths !== undefined && { paths: fm.paths }),
      ...(fm['paths-ignore'] !== undefined && { pathsIgnore: fm['paths-ignore'] })
    }
  }
  return { rubric, issues }
}

/** The rubrics `extends` names, each with where it is written. */
function extendsOf(raw: string | readonly string[] | undefined, locate: Locate): Upstream[] {
  if (raw === undefined) return []
  if (typeof raw === 'string') return [{ spec: raw, ...locate(['extends'], 'value') }]
  return raw.map((spec, i) => ({ spec, ...locate(['extends', i], 'value') }))
}
