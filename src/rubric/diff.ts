import type {
  CouncilConfig,
  MemberSettings,
  Criterion,
  GateOptions,
  Rubric,
  RubricScope,
  Thresholds
} from './types.js'

export interface RubricChange {
  readonly text: string
  /** The change can make the rubric easier to pass: a rule removed, demoted or loosened. */
  readonly weakens: boolean
}

export interface RubricDiff {
  readonly changes: readonly RubricChange[]
  readonly weakened: boolean
}

/** What changed between two values of one field, in words a reviewer can check. */
type Compare<T> = (before: T, after: T) => readonly RubricChange[]

/**
 * One entry for every field of `T`, so that a field added to the rubric cannot be left out of the
 * diff: the type does not check until it is compared here, or named as no rule of its own.
 */
type FieldTable<T> = { readonly [K in keyof Required<T>]: Compare<T[K]> | 'not a rule' }

type Value = string | number | boolean | undefined

/** A value either side shows, or `none`. */
function show(value: Value): string {
  return value === undefined || value === '' ? 'none' : String(value)
}

/** One value: `name before → after`, weakening when `weakens(before, after)` says so. */
function value<T extends Value>(
  name: string,
  weakens: (before: T, after: T) => boolean = () => false
): Compare<T> {
  return (before, after) =>
    before === after
      ? []
      : [{ text: `${name} ${show(before)} → ${show(after)}`, weakens: weakens(before, after) }]
}

/** A number whose lowering makes the rubric easier to pass (a threshold, a quorum). */
const lowered = (before: number | undefined, after: number | undefined): boolean =>
  before !== undefined && (after ?? -Infinity) < before

/** A list shown as one value: `name a, b → a`. */
function list<T>(
  name: string,
  shown: (item: T) => string,
  weakens: (before: readonly T[], after: readonly T[]) => boolean = () => false
): Compare<readonly T[]> {
  return (before, after) => {
    const from = before.map(shown).join(', ')
    const to = after.map(shown).join(', ')
    return from === to
      ? []
      : [{ text: `${name} ${from || 'none'} → ${to || 'none'}`, weakens: weakens(before, after) }]
  }
}

/** Every field of an object, by its own table, in the table's order. */
function fields<T>(table: FieldTable<T>): Compare<T> {
  return (before, after) =>
    (Object.keys(table) as (keyof T)[]).flatMap(key => {
      const compare = table[key]
      return compare === 'not a rule' ? [] : compare(before[key], after[key])
    })
}

/** What changed in one criterion the two rubrics share, field by field: every field is here. */
const CRITERION: { readonly [K in keyof Required<Criterion>]: Compare<Criterion> | 'not a rule' } =
  {
    id: 'not a rule', // criteria are matched by it
    description: (old, c) =>
      old.description === c.description
        ? []
        : [
            {
              text: `criterion "${c.id}" reworded: "${old.description}" → "${c.description}"`,
              weakens: false
            }
          ],
    required: (old, c) =>
      old.required === c.required
        ? []
        : [
            {
              text: `criterion "${c.id}" ${c.required ? 'promoted to must-have' : 'demoted to nice-to-have'}`,
              weakens: !c.required
            }
          ],
    weight: (old, c) => {
      // A demotion or promotion moves the default weight with it; that is not a change of its own.
      const defaults = old.weight === (old.required ? 1 : 0) && c.weight === (c.required ? 1 : 0)
      return old.required !== c.required && defaults
        ? []
        : value<number>(`criterion "${c.id}" weight`)(old.weight, c.weight)
    },
    section: 'not a rule', // follows `required`
    requiredMinScore: (old, c) =>
      value(`criterion "${c.id}" required_min_score`, lowered)(
        old.requiredMinScore,
        c.requiredMinScore
      ),
    scoreRanges: (old, c) =>
      JSON.stringify(old.scoreRanges ?? null) === JSON.stringify(c.scoreRanges ?? null)
        ? []
        : [{ text: `criterion "${c.id}" score ranges changed`, weakens: false }],
    line: 'not a rule'
  }

/** Criteria by id: removed (a must-have weakening), added, or changed field by field. */
const criteria: Compare<readonly Criterion[]> = (base, head) => {
  const before = new Map(base.map(c => [c.id, c]))
  const after = new Set(head.map(c => c.id))
  return [
    ...base.flatMap(c =>
      after.has(c.id) ? [] : [{ text: `${kind(c)} "${c.id}" removed`, weakens: c.required }]
    ),
    ...head.flatMap(c => {
      const old = before.get(c.id)
      if (old === undefined) return [{ text: `${kind(c)} "${c.id}" added`, weakens: false }]
      return criterionChanges(old, c)
    })
  ]
}

/** What changed in one criterion, field by field. */
export function criterionChanges(old: Criterion, c: Criterion): RubricChange[] {
  return Object.values(CRITERION).flatMap(compare =>
    compare === 'not a rule' ? [] : compare(old, c)
  )
}

/** Gates by command: added, removed (weakening), or given another timeout. */
const gates: Compare<Rubric['gates']> = (base, head) => {
  const before = new Map(base.map(g => [g.command, g]))
  const after = new Map(head.map(g => [g.command, g]))
  return [
    ...base.flatMap(g =>
      after.has(g.command) ? [] : [{ text: `gate \`${g.command}\` removed`, weakens: true }]
    ),
    ...head.flatMap(g => {
      const old = before.get(g.command)
      if (old === undefined) return [{ text: `gate \`${g.command}\` added`, weakens: false }]
      return value<number>(`gate \`${g.command}\` timeout`)(old.timeout, g.timeout)
    })
  ]
}

const GATE_OPTIONS: FieldTable<GateOptions> = {
  timeout: value('gates.timeout'),
  parallel: value('gates.parallel'),
  // Another directory runs other commands under the same names.
  workingDirectory: value('gates.working_directory', () => true)
}

const THRESHOLDS: FieldTable<Thresholds> = {
  pass: value('thresholds.pass', lowered),
  fail: value('thresholds.fail', lowered),
  confidence: value('thresholds.confidence', lowered)
}

const COUNCIL: FieldTable<CouncilConfig> = {
  models: list('council.models', m => m),
  // Another effort grades more or less carefully, in either direction: shown, not a weakening.
  reasoning: value('council.reasoning'),
  memberReasoning: (before = {}, after = {}) =>
    [...new Set([...Object.keys(before), ...Object.keys(after)])].flatMap(member =>
      value(`council.models "${member}" reasoning`)(
        ownValue(before, member),
        ownValue(after, member)
      )
    ),
  // A window, a cap or a temperature changes how a judge is asked, not what it is asked: shown.
  memberSettings: (before = {}, after = {}) =>
    [...new Set([...Object.keys(before), ...Object.keys(after)])].flatMap(member =>
      value<string | undefined>(`council.models "${member}" settings`)(
        settingsText(ownValue(before, member)),
        settingsText(ownValue(after, member))
      )
    ),
  quorum: value('council.quorum', lowered),
  samples: value('council.samples'),
  timeout: value('council.timeout'),
  // Who casts the extra votes, and how many may be cast, decide a must-have the members are not
  // agreed on: fewer leave a lead of one vote unconfirmed, more (or other reserves) can settle a
  // tie either way. Any change can let a pull request pass that would not have.
  reserve: list(
    'council.reserve',
    m => m,
    () => true
  ),
  maxExtraVotes: value('council.max_extra_votes', () => true)
}

/**
 * The rubric's fields, in the order the diff lists them. What is no rule of its own (where the
 * rubric is from, its text, title, preamble and notes) shows only as "wording or notes changed".
 */
const RUBRIC: FieldTable<Rubric> = {
  criteria,
  gates,
  gateOptions: fields(GATE_OPTIONS),
  thresholds: fields(THRESHOLDS),
  minCoverage: value('min_coverage', lowered),
  blocking: value('blocking', (_, after) => after === 'majority'),
  // Required, a must-have blocks only where the record says it may: fewer can block.
  calibration: value('calibration', (_, after) => after === 'required'),
  accuracyCeiling: (before, after) =>
    before === after
      ? []
      : [{ text: `accuracy ceiling turned ${after ? 'on' : 'off'}`, weakens: !after }],
  dimensions: list(
    'dimensions',
    d => `${d.name}:${d.weight}`,
    (before, after) => after.length < before.length
  ),
  // Weight moved between the dimensions and the criteria can favour what the pull request does well.
  scoreWeights: (before, after) =>
    before.dimensions === after.dimensions && before.criteria === after.criteria
      ? []
      : [
          {
            text: `score_weights dimensions ${before.dimensions}, criteria ${before.criteria} → dimensions ${after.dimensions}, criteria ${after.criteria}`,
            weakens: true
          }
        ],
  council: fields(COUNCIL),
  focus: list(
    'focus',
    f => f.area,
    (before, after) => after.length < before.length
  ),
  // Excluding more files shows the judges less of the change.
  exclude: list(
    'exclude',
    g => g,
    (before, after) => after.some(g => !before.includes(g))
  ),
  // A rubric no longer named takes its rules with it; what another names is not read here.
  extends: list(
    'extends',
    u => u.spec,
    (before, after) => before.some(b => !after.some(a => a.spec === b.spec))
  ),
  // Another name is another check run; fewer files in scope judge less of a pull request.
  name: value('name', () => true),
  scope: (before, after) =>
    JSON.stringify(before) === JSON.stringify(after)
      ? []
      : [
          {
            text: `paths ${scopeText(before)} → ${scopeText(after)}`,
            weakens: true
          }
        ],
  inherited: 'not a rule', // the rules it brought are compared with the rubric's own
  source: 'not a rule',
  hash: 'not a rule',
  text: 'not a rule',
  title: 'not a rule',
  preamble: 'not a rule',
  notes: 'not a rule'
}

/**
 * What a pull request changed in the rubric that grades it, in words a reviewer can check, every
 * field from one table (`RUBRIC`). Pure; the order follows the table.
 */
export function diffRubrics(base: Rubric, head: Rubric): RubricDiff {
  const changes = [...fields(RUBRIC)(base, head)]
  if (changes.length === 0 && base.hash !== head.hash) {
    changes.push({ text: 'wording or notes changed; no rule changed', weakens: false })
  }
  return { changes, weakened: changes.some(c => c.weakens) }
}

function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

/** A judge's own settings as the diff shows them: `window 8192, temperature 0`. */
function settingsText(settings: MemberSettings | undefined): string | undefined {
  if (settings === undefined) return undefined
  const { window, maxOutputTokens, temperature } = settings
  return [
    window !== undefined && `window ${window}`,
    maxOutputTokens !== undefined && `max_output_tokens ${maxOutputTokens}`,
    temperature !== undefined && `temperature ${temperature}`
  ]
    .filter(Boolean)
    .join(', ')
}

function kind(c: Criterion): string {
  return c.required ? 'must-have' : 'nice-to-have'
}

/** A scope as the diff shows it. */
function scopeText(scope: RubricScope): string {
  if (scope.paths !== undefined) return `[${scope.paths.join(', ')}]`
  if (scope.pathsIgnore !== undefined) return `all but [${scope.pathsIgnore.join(', ')}]`
  return 'every file'
}
