import {
  BUILT_IN_DIMENSIONS,
  DEFAULT_GATE_OPTIONS,
  DEFAULT_MIN_COVERAGE,
  DEFAULT_SAMPLES,
  DEFAULT_THRESHOLDS,
  DEFAULT_TIE_BREAKS,
  FOCUS_TEXT,
  GENERIC_ANCHORS,
  PARALLEL_GATES_WHEN_TRUE
} from './defaults.js'
import type { RubricIssue, RubricRule } from './errors.js'
import type { CheckedCriterion, CheckedFrontMatter } from './front-matter.js'
import { own } from './own.js'
import { SECTION_HEADINGS, type BodyItem, type LineProblem, type ParsedBody } from './markdown.js'
import { ID_PATTERN, type RawScoreRanges } from './schema.js'
import type {
  Criterion,
  CriterionSection,
  Dimension,
  Gate,
  GateOptions,
  Rubric,
  RubricSource,
  ScoreRange
} from './types.js'
import type { Position } from './yaml-source.js'
import { label, type Path } from './zod-issues.js'

export interface BuildInput {
  readonly source: RubricSource
  readonly text: string
  readonly hash: string
  readonly frontMatter: CheckedFrontMatter
  readonly body: ParsedBody | undefined
  /** Problems found by line before building (YAML syntax); the body's own are in `body`. */
  readonly lineProblems: readonly LineProblem[]
  readonly locate: (path: Path, at: 'key' | 'value') => Position
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

  const models = fm.council?.models ?? []
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

  if (
    gates.length === 0 &&
    criteria.length === 0 &&
    dimensions.length === 0 &&
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
      ...(samples !== undefined && { samples }),
      ...(quorum !== undefined && { quorum }),
      ...(fm.council?.timeout !== undefined && { timeout: fm.council.timeout }),
      tieBreaks: fm.council?.tie_breaks ?? DEFAULT_TIE_BREAKS
    },
    blocking: fm.blocking ?? 'majority',
    scoreWeights,
    minCoverage: fm.min_coverage ?? DEFAULT_MIN_COVERAGE,
    exclude: fm.exclude ?? []
  }
  return { rubric, issues }
}

type AtPath = (path: Path, rule: RubricRule, message: string, at?: 'key' | 'value') => void
type AtLine = (line: number, column: number | undefined, rule: RubricRule, message: string) => void

function buildGateOptions(raw: CheckedFrontMatter['values']['gates']): GateOptions {
  if (raw === undefined || Array.isArray(raw)) return DEFAULT_GATE_OPTIONS
  const parallel =
    raw.parallel === undefined || raw.parallel === false
      ? 1
      : raw.parallel === true
        ? PARALLEL_GATES_WHEN_TRUE
        : raw.parallel
  return {
    timeout: raw.timeout ?? DEFAULT_GATE_OPTIONS.timeout,
    parallel,
    workingDirectory: raw.working_directory ?? DEFAULT_GATE_OPTIONS.workingDirectory
  }
}

function buildGates(
  raw: CheckedFrontMatter['values']['gates'],
  items: readonly BodyItem[],
  options: GateOptions,
  locate: BuildInput['locate'],
  atLine: AtLine
): Gate[] {
  const gates: Gate[] = []
  const commands = raw === undefined ? [] : Array.isArray(raw) ? raw : (raw.commands ?? [])
  const base: Path = Array.isArray(raw) ? ['gates'] : ['gates', 'commands']
  commands.forEach((command, i) => {
    const { line } = locate([...base, i], 'value')
    if (typeof command === 'string') gates.push({ command, timeout: options.timeout, line })
    else gates.push({ command: command.run, timeout: command.timeout ?? options.timeout, line })
  })
  for (const item of items) {
    const parsed = parseGateItem(item.text)
    if ('problem' in parsed) atLine(item.line, item.column, 'gate-syntax', parsed.problem)
    else gates.push({ command: parsed.command, timeout: options.timeout, line: item.line })
  }
  return gates
}

/**
 * A gate item is a code span holding the command, optionally followed by a description:
 * "- `pytest tests/` unit tests". Spans of several backticks allow backticks inside.
 */
function parseGateItem(text: string): { command: string } | { problem: string } {
  const open = /^`+/.exec(text)?.[0]
  if (!open) {
    return {
      problem: `gate "${abbreviate(text)}" is not a command in backticks; write it as - \`your command\``
    }
  }
  let search = open.length
  for (;;) {
    const close = text.indexOf(open, search)
    if (close === -1) return { problem: `gate "${abbreviate(text)}" has no closing ${open}` }
    // Only a run of exactly as many backticks closes the span.
    const run = /^`+/.exec(text.slice(close))?.[0].length ?? open.length
    if (run !== open.length) {
      search = close + run
      continue
    }
    // Surrounding spaces mean nothing to the shell, so the command is trimmed.
    const command = text.slice(open.length, close).replace(/\n/g, ' ').trim()
    if (command === '') return { problem: 'gate command is empty' }
    return { command }
  }
}

const EXPLICIT_ID = /^([\p{L}\p{N}_-]+):[ \t]+(\S[\s\S]*)$/u
const SLUG_WORDS = 4

/** The id a criterion gets from its text: its first words, lower-cased and joined by "-". */
function slugify(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []
  return words.slice(0, SLUG_WORDS).join('-')
}

function parseCriterionItem(text: string): {
  id: string
  description: string
  explicit: boolean
} {
  const match = EXPLICIT_ID.exec(text)
  if (match?.[1] && match[2]) return { id: match[1], description: match[2].trim(), explicit: true }
  return { id: slugify(text), description: text, explicit: false }
}

interface Draft {
  id: string
  description: string
  section: CriterionSection
  line: number
  /** Set when the criterion, or the settings added to it, come from the front matter. */
  frontMatterIndex?: number
  settings?: Settings
  /** Something about it is already reported, so it is not built. */
  failed?: boolean
}

/** A front-matter criterion's settings, checked; undefined fields were not given. */
interface Settings {
  readonly weight?: number
  readonly scoreRanges?: ScoreRange[]
  readonly requiredMinScore?: number
}

function buildCriteria(
  fromFrontMatter: CheckedFrontMatter['criteria'],
  body: ParsedBody | undefined,
  locate: BuildInput['locate'],
  atPath: AtPath,
  atLine: AtLine
): Criterion[] {
  const drafts: Draft[] = []
  const byId = new Map<string, Draft>()
  const key = (id: string): string => id.toLowerCase()

  for (const section of ['must', 'nice'] as const) {
    for (const item of body?.items[section] ?? []) {
      const { id, description } = parseCriterionItem(item.text)
      if (id === '') {
        atLine(
          item.line,
          item.column,
          'invalid-id',
          `criterion "${abbreviate(item.text)}" has no words to make an id from; start it with "your-id: "`
        )
        continue
      }
      const earlier = byId.get(key(id))
      if (earlier) {
        atLine(
          item.line,
          item.column,
          'duplicate-id',
          `criterion id "${id}" is already used on line ${earlier.line}; ` +
            'ids must be unique: start one of them with its own "your-id: "'
        )
        continue
      }
      const draft: Draft = { id, description, section, line: item.line }
      drafts.push(draft)
      byId.set(key(id), draft)
    }
  }

  const fromMarkdown = new Set(drafts)
  const frontMatterDrafts: Draft[] = []
  for (const entry of fromFrontMatter) {
    const { index, criterion, invalidKeys } = entry
    const path: Path = ['criteria', index]
    // Settings first: a criterion's id or description problem must not hide its ranges' problems.
    const checkedId =
      criterion.id ?? (criterion.description ? slugify(criterion.description) : undefined)
    const name = checkedId && !invalidKeys.includes('id') ? `criterion "${checkedId}"` : entry.name
    const settings = checkSettings(criterion, path, name, atPath)
    const failed = !entry.valid || settings === undefined
    // An id or description that failed validation is already reported; what would follow from
    // its absence (no id, no description) would be noise.
    if (invalidKeys.includes('id') || invalidKeys.includes('description')) continue
    const id = checkedId ?? ''
    if (id === '' || !ID_PATTERN.test(id)) {
      atPath(path, 'type', `${label(path, undefined)} needs an id or a description`)
      continue
    }
    const earlier = byId.get(key(id))
    if (earlier && fromMarkdown.has(earlier) && earlier.frontMatterIndex === undefined) {
      if (criterion.description !== undefined) {
        atPath(
          [...path, 'id'],
          'duplicate-id',
          `criterion id "${id}" is also a Markdown criterion (line ${earlier.line}); ` +
            'to add settings to it, leave out description here'
        )
        continue
      }
      const required = earlier.section === 'must'
      if (criterion.required !== undefined && criterion.required !== required) {
        atPath(
          [...path, 'required'],
          'type',
          `criterion "${id}": required: ${criterion.required} contradicts its Markdown section ` +
            `(## ${SECTION_HEADINGS[earlier.section]}, line ${earlier.line})`
        )
        continue
      }
      earlier.frontMatterIndex = index
      if (settings) earlier.settings = settings
      if (failed) earlier.failed = true
      continue
    }
    if (earlier) {
      atPath(
        [...path, criterion.id !== undefined ? 'id' : 'description'],
        'duplicate-id',
        `criterion id "${id}" is already used on line ${earlier.line}; ids must be unique`
      )
      continue
    }
    if (criterion.description === undefined) {
      atPath(
        path,
        'type',
        `criterion "${id}" has no description, and no Markdown criterion has that id`
      )
      continue
    }
    const draft: Draft = {
      id,
      description: criterion.description,
      section: criterion.required === false ? 'nice' : 'must',
      line: locate(path, 'value').line,
      frontMatterIndex: index,
      ...(settings && { settings }),
      ...(failed && { failed })
    }
    frontMatterDrafts.push(draft)
    byId.set(key(id), draft)
  }

  // Structured criteria first, then the Markdown ones, each in the order written.
  return [...frontMatterDrafts, ...drafts].flatMap(draft =>
    draft.failed ? [] : [finishCriterion(draft)]
  )
}

/**
 * Checks the settings of a front-matter criterion (its score ranges, and required_min_score
 * against them), reporting every problem; undefined when there was one.
 */
function checkSettings(
  raw: CheckedCriterion['criterion'],
  base: Path,
  name: string,
  atPath: AtPath
): Settings | undefined {
  let ok = true
  let scoreRanges: ScoreRange[] | undefined
  if (raw.score_ranges) {
    const result = normaliseScoreRanges(raw.score_ranges)
    for (const problem of result.problems) {
      atPath([...base, 'score_ranges', ...problem.at], problem.rule, `${name}: ${problem.message}`)
    }
    if (result.problems.length > 0) ok = false
    else scoreRanges = result.ranges
  }
  const minScore = raw.required_min_score
  // Ranges given but wrong are reported above; only their absence is this rule's business.
  if (minScore !== undefined && raw.score_ranges === undefined) {
    atPath(
      [...base, 'required_min_score'],
      'min-score',
      `${name}: required_min_score needs score_ranges (a checklist criterion is PASS or FAIL)`
    )
    ok = false
  }
  if (!ok) return undefined
  return {
    ...(raw.weight !== undefined && { weight: raw.weight }),
    ...(scoreRanges && { scoreRanges }),
    ...(minScore !== undefined && { requiredMinScore: minScore })
  }
}

function finishCriterion(draft: Draft): Criterion {
  const settings = draft.settings
  const required = draft.section === 'must'
  return {
    id: draft.id,
    description: draft.description,
    required,
    section: draft.section,
    weight: settings?.weight ?? (required ? 1 : 0),
    line: draft.line,
    ...(settings?.scoreRanges && { scoreRanges: settings.scoreRanges }),
    ...(settings?.requiredMinScore !== undefined && {
      requiredMinScore: settings.requiredMinScore
    })
  }
}

interface RangeProblem {
  /** Path below `score_ranges`: an item index, or a band start, or nothing for the whole. */
  readonly at: Path
  readonly rule: Extract<
    RubricRule,
    'score-range-bounds' | 'score-range-overlap' | 'score-range-coverage'
  >
  readonly message: string
}

/**
 * Checks AgentV's three rules for score ranges (bounds, overlap, coverage of every integer 0–10)
 * and returns the ranges sorted. Each element is already an integer 0–10 (the schema checks that).
 */
export function normaliseScoreRanges(raw: RawScoreRanges): {
  ranges: ScoreRange[]
  problems: RangeProblem[]
} {
  const problems: RangeProblem[] = []
  let indexed: { range: ScoreRange; at: Path }[]

  if (Array.isArray(raw)) {
    indexed = []
    raw.forEach((item, i) => {
      const [min, max] = item.score_range
      if (min > max) {
        problems.push({
          at: [i, 'score_range'],
          rule: 'score-range-bounds',
          message: `score_range [${min},${max}] has its bounds reversed (low must not exceed high)`
        })
      } else {
        indexed.push({ range: { min, max, expectedOutcome: item.expected_outcome }, at: [i] })
      }
    })
  } else {
    const starts = Object.keys(raw)
      .map(Number)
      .sort((a, b) => a - b)
    indexed = starts.map((start, i) => ({
      range: {
        min: start,
        max: (starts[i + 1] ?? 11) - 1,
        expectedOutcome: raw[String(start)] ?? ''
      },
      at: [String(start)]
    }))
  }

  const sorted = [...indexed].sort((a, b) => a.range.min - b.range.min || a.range.max - b.range.max)
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1]
    const current = sorted[i]
    if (previous && current && current.range.min <= previous.range.max) {
      problems.push({
        at: current.at,
        rule: 'score-range-overlap',
        message:
          `score_ranges [${previous.range.min},${previous.range.max}] and ` +
          `[${current.range.min},${current.range.max}] overlap`
      })
    }
  }

  const covered = new Set<number>()
  for (const { range } of indexed) for (let s = range.min; s <= range.max; s++) covered.add(s)
  const gaps: string[] = []
  for (let s = 0; s <= 10; s++) {
    if (covered.has(s)) continue
    let end = s
    while (end + 1 <= 10 && !covered.has(end + 1)) end++
    gaps.push(end === s ? String(s) : `${s}–${end}`)
    s = end
  }
  if (gaps.length > 0 && problems.every(p => p.rule !== 'score-range-bounds')) {
    problems.push({
      at: [],
      rule: 'score-range-coverage',
      message:
        `score_ranges leave ${gaps.join(', ')} uncovered; coverage must include every score 0–10` +
        (Array.isArray(raw) ? '' : ' (the first band must start at 0)')
    })
  }
  return { ranges: sorted.map(s => s.range), problems }
}

function buildDimensions(
  raw: CheckedFrontMatter['values']['dimensions'],
  hasCriteria: boolean,
  atPath: AtPath,
  failed: (...fields: string[]) => boolean
): Dimension[] {
  let entries: { name: string; weight: number; description: string; builtIn: boolean }[]
  if (raw === false || (raw === undefined && !hasCriteria)) return []
  if (raw === undefined || raw === true || raw === 'default') {
    entries = Object.entries(BUILT_IN_DIMENSIONS).map(([name, d]) => ({
      name,
      ...d,
      builtIn: true
    }))
  } else {
    entries = []
    if (Object.keys(raw).length === 0) {
      atPath(
        ['dimensions'],
        'dimension',
        'dimensions is an empty map; write dimensions: false to turn them off'
      )
    }
    for (const [name, value] of Object.entries(raw)) {
      const builtIn = own(BUILT_IN_DIMENSIONS, name)
      const given = typeof value === 'number' ? { weight: value } : value
      const weight = given.weight ?? builtIn?.weight
      const description = given.description ?? builtIn?.description
      if (description === undefined) {
        if (failed(`dimensions.${name}.description`)) continue
        atPath(
          ['dimensions', name],
          'dimension',
          `dimension "${name}" is not built in, so it needs a description: { weight: 10, description: "…" } ` +
            `(built in: ${Object.keys(BUILT_IN_DIMENSIONS).join(', ')})`,
          'key'
        )
        continue
      }
      if (weight === undefined) {
        if (failed(`dimensions.${name}.weight`)) continue
        atPath(['dimensions', name], 'weight', `dimension "${name}" needs a weight`, 'key')
        continue
      }
      entries.push({ name, weight, description, builtIn: builtIn !== undefined })
    }
  }
  const total = entries.reduce((sum, e) => sum + e.weight, 0)
  return entries.map(({ name, weight, description }) => ({
    name,
    description,
    weight,
    normalisedWeight: weight / total,
    anchors: own(BUILT_IN_DIMENSIONS, name)?.anchors ?? GENERIC_ANCHORS
  }))
}

function abbreviate(text: string): string {
  const line = text.split('\n')[0] ?? ''
  return line.length > 50 ? `${line.slice(0, 47)}...` : line
}
