import { buildCriteria } from './build-criteria.js'
import { patternProblem } from './paths.js'
import { buildDimensions } from './build-dimensions.js'
import { buildGateOptions, buildGates } from './build-gates.js'
import { buildCouncil } from './build-council.js'
import { DEFAULT_MIN_COVERAGE, DEFAULT_THRESHOLDS, FOCUS_TEXT } from './defaults.js'
import type { AtLine, AtPath, Locate, RubricIssue } from './errors.js'
import type { CheckedFrontMatter } from './front-matter.js'
import { SECTION_HEADINGS, type LineProblem, type ParsedBody } from './markdown.js'
import type { Rubric, RubricSource, Upstream } from './types.js'

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

type FrontMatterValues = CheckedFrontMatter['values']
type Failed = (...fields: string[]) => boolean

/** Where a build's problems are reported: by line, by path in the data, and which fields failed. */
interface Report {
  readonly issues: RubricIssue[]
  readonly atLine: AtLine
  readonly atPath: AtPath
  /** Whether any of these fields failed on its own (its error is reported; rules using it are not checked). */
  readonly failed: Failed
}

/** The report of a build, holding the problems found before it: the front matter's, then by line. */
function startReport(input: BuildInput): Report {
  const issues: RubricIssue[] = []
  const atLine: AtLine = (line, column, rule, message) => {
    issues.push({
      file: input.source.path,
      line,
      ...(column !== undefined && { column }),
      rule,
      message
    })
  }
  const atPath: AtPath = (path, rule, message, at = 'value') => {
    const { line, column } = input.locate(path, at)
    atLine(line, column, rule, message)
  }
  for (const problem of input.frontMatter.problems)
    atPath(problem.path, problem.rule, problem.message, problem.at)
  for (const problem of [...input.lineProblems, ...(input.body?.problems ?? [])])
    atLine(problem.line, problem.column, problem.rule, problem.message)
  const failed: Failed = (...fields) =>
    fields.some(field => input.frontMatter.invalidFields.has(field))
  return { issues, atLine, atPath, failed }
}

/** Assembles the rubric and checks every rule that spans fields; problems are returned, not thrown. */
export function buildRubric(input: BuildInput): { rubric: Rubric; issues: RubricIssue[] } {
  const { frontMatter, body } = input
  const fm = frontMatter.values
  const report = startReport(input)
  const { atLine, atPath, failed } = report
  const gateOptions = buildGateOptions(fm.gates)
  const gates = buildGates(fm.gates, body?.items.gates ?? [], gateOptions, input.locate, atLine)
  const criteria = buildCriteria(frontMatter.criteria, body, input.locate, atPath, atLine)
  const dimensions = buildDimensions(fm.dimensions, criteria.length > 0, atPath, failed)
  const thresholds = buildThresholds(fm.thresholds, atPath, failed)
  const hasAccuracy = dimensions.some(d => d.name === 'accuracy')
  if (fm.accuracy_ceiling === true && !hasAccuracy) {
    atPath(
      ['accuracy_ceiling'],
      'dimension',
      'accuracy_ceiling needs an "accuracy" dimension; add one or remove accuracy_ceiling'
    )
  }
  const council = buildCouncil(fm.council, atPath, failed)
  const scoreWeights = buildScoreWeights(fm.score_weights, atPath, failed)
  checkScope(fm, atPath)
  const upstream = extendsOf(fm.extends, input.locate)
  // A rubric that extends another may only add to it, or only name it.
  const empty = gates.length + criteria.length + dimensions.length + upstream.length === 0
  if (empty && report.issues.length === 0) {
    atLine(
      1,
      undefined,
      'empty-rubric',
      'the rubric has no gates, no criteria and no dimensions, so it would pass everything; ' +
        `add a "## ${SECTION_HEADINGS.gates}" or "## ${SECTION_HEADINGS.must}" section`
    )
  }
  const { title, preamble, notes, focus } = described(input)
  const rubric: Rubric = {
    source: input.source,
    hash: input.hash,
    text: input.text,
    ...(title !== undefined && { title }),
    preamble,
    gates,
    gateOptions,
    criteria,
    notes,
    dimensions,
    accuracyCeiling: hasAccuracy && fm.accuracy_ceiling !== false,
    focus,
    thresholds,
    council,
    blocking: fm.blocking ?? 'majority',
    ...(fm.calibration !== undefined && { calibration: fm.calibration }),
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
  return { rubric, issues: report.issues }
}

/** What the rubric says to the judges besides its criteria and dimensions. */
function described(input: BuildInput): Pick<Rubric, 'title' | 'preamble' | 'notes' | 'focus'> {
  const fm = input.frontMatter.values
  const { body } = input
  const title = fm.title ?? body?.title
  const focusAreas = fm.focus === undefined ? [] : Array.isArray(fm.focus) ? fm.focus : [fm.focus]
  return {
    ...(title !== undefined && { title }),
    preamble: body?.preamble ?? '',
    notes: [fm.notes?.trim(), body?.notes].filter(Boolean).join('\n\n'),
    focus: [...new Set(focusAreas)].map(area => ({ area, ...FOCUS_TEXT[area] }))
  }
}

function buildThresholds(
  raw: FrontMatterValues['thresholds'],
  atPath: AtPath,
  failed: Failed
): Rubric['thresholds'] {
  const thresholds = {
    pass: raw?.pass ?? DEFAULT_THRESHOLDS.pass,
    fail: raw?.fail ?? DEFAULT_THRESHOLDS.fail,
    confidence: raw?.confidence ?? DEFAULT_THRESHOLDS.confidence
  }
  if (thresholds.fail > thresholds.pass && !failed('thresholds.pass', 'thresholds.fail')) {
    atPath(
      raw?.fail !== undefined ? ['thresholds', 'fail'] : ['thresholds'],
      'threshold',
      `thresholds.fail (${thresholds.fail}) must not exceed thresholds.pass (${thresholds.pass})`
    )
  }
  return thresholds
}

function buildScoreWeights(
  raw: FrontMatterValues['score_weights'],
  atPath: AtPath,
  failed: Failed
): Rubric['scoreWeights'] {
  const scoreWeights = { dimensions: raw?.dimensions ?? 1, criteria: raw?.criteria ?? 1 }
  if (
    raw &&
    scoreWeights.dimensions === 0 &&
    scoreWeights.criteria === 0 &&
    !failed('score_weights.dimensions', 'score_weights.criteria')
  ) {
    atPath(['score_weights'], 'weight', 'score_weights must not all be 0')
  }
  return scoreWeights
}

/** `paths` and `paths-ignore`: one of them at most, each pattern one that can match. */
function checkScope(fm: FrontMatterValues, atPath: AtPath): void {
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
}

/** The rubrics `extends` names, each with where it is written. */
function extendsOf(raw: string | readonly string[] | undefined, locate: Locate): Upstream[] {
  if (raw === undefined) return []
  if (typeof raw === 'string') return [{ spec: raw, ...locate(['extends'], 'value') }]
  return raw.map((spec, i) => ({ spec, ...locate(['extends', i], 'value') }))
}
