import { abbreviate, type AtLine, type AtPath, type Locate } from './errors.js'
import type { CheckedCriterion, CheckedFrontMatter } from './front-matter.js'
import { SECTION_HEADINGS, type ParsedBody } from './markdown.js'
import { ID_PATTERN } from './schema.js'
import { normaliseScoreRanges } from './score-ranges.js'
import type { Criterion, CriterionSection, ScoreRange } from './types.js'
import { label, type Path } from './zod-issues.js'

/** The rubric's criteria: from the body's sections and the front matter's `criteria`, merged by id. */

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

export function buildCriteria(
  fromFrontMatter: CheckedFrontMatter['criteria'],
  body: ParsedBody | undefined,
  locate: Locate,
  atPath: AtPath,
  atLine: AtLine
): Criterion[] {
  const byId = new Map<string, Draft>()
  const markdown = markdownDrafts(body, byId, atLine)
  const context = { byId, fromMarkdown: new Set(markdown), locate, atPath }
  const structured: Draft[] = []
  for (const entry of fromFrontMatter) {
    const draft = frontMatterDraft(entry, context)
    if (draft === undefined) continue
    structured.push(draft)
    byId.set(idKey(draft.id), draft)
  }
  // Structured criteria first, then the Markdown ones, each in the order written.
  return [...structured, ...markdown].flatMap(draft =>
    draft.failed ? [] : [finishCriterion(draft)]
  )
}

/** Ids are unique without regard to case. */
const idKey = (id: string): string => id.toLowerCase()

/**
 * The criteria of the body's sections, in the order written, each also in `byId`; an item with no
 * words to make an id from, or whose id is taken, is reported instead.
 */
function markdownDrafts(
  body: ParsedBody | undefined,
  byId: Map<string, Draft>,
  atLine: AtLine
): Draft[] {
  const drafts: Draft[] = []
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
      const earlier = byId.get(idKey(id))
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
      byId.set(idKey(id), draft)
    }
  }
  return drafts
}

interface FrontMatterContext {
  /** The criteria so far, by `idKey`. */
  readonly byId: ReadonlyMap<string, Draft>
  readonly fromMarkdown: ReadonlySet<Draft>
  readonly locate: Locate
  readonly atPath: AtPath
}

/**
 * A front-matter criterion's draft; undefined when it is reported, or when it gives settings to
 * the Markdown criterion of its id (which then holds them).
 */
function frontMatterDraft(entry: CheckedCriterion, context: FrontMatterContext): Draft | undefined {
  const { index, criterion, invalidKeys } = entry
  const { atPath } = context
  const path: Path = ['criteria', index]
  // Settings first: a criterion's id or description problem must not hide its ranges' problems.
  const checkedId =
    criterion.id ?? (criterion.description ? slugify(criterion.description) : undefined)
  const name = checkedId && !invalidKeys.includes('id') ? `criterion "${checkedId}"` : entry.name
  const settings = checkSettings(criterion, path, name, atPath)
  const failed = !entry.valid || settings === undefined
  // An id or description that failed validation is already reported; what would follow from
  // its absence (no id, no description) would be noise.
  if (invalidKeys.includes('id') || invalidKeys.includes('description')) return undefined
  const id = checkedId ?? ''
  if (id === '' || !ID_PATTERN.test(id)) {
    atPath(path, 'type', `${label(path, undefined)} needs an id or a description`)
    return undefined
  }
  const earlier = context.byId.get(idKey(id))
  if (earlier && context.fromMarkdown.has(earlier) && earlier.frontMatterIndex === undefined) {
    addSettings(earlier, { entry, id, settings, failed }, atPath)
    return undefined
  }
  if (earlier) {
    atPath(
      [...path, criterion.id !== undefined ? 'id' : 'description'],
      'duplicate-id',
      `criterion id "${id}" is already used on line ${earlier.line}; ids must be unique`
    )
    return undefined
  }
  if (criterion.description === undefined) {
    atPath(
      path,
      'type',
      `criterion "${id}" has no description, and no Markdown criterion has that id`
    )
    return undefined
  }
  return {
    id,
    description: criterion.description,
    section: criterion.required === false ? 'nice' : 'must',
    line: context.locate(path, 'value').line,
    frontMatterIndex: index,
    ...(settings && { settings }),
    ...(failed && { failed })
  }
}

/**
 * A front-matter criterion without a description that names a Markdown criterion by its id: its
 * settings go to that criterion, unless it contradicts the section the criterion is written in.
 */
function addSettings(
  markdown: Draft,
  given: {
    readonly entry: CheckedCriterion
    readonly id: string
    readonly settings: Settings | undefined
    readonly failed: boolean
  },
  atPath: AtPath
): void {
  const { criterion, index } = given.entry
  const path: Path = ['criteria', index]
  if (criterion.description !== undefined) {
    atPath(
      [...path, 'id'],
      'duplicate-id',
      `criterion id "${given.id}" is also a Markdown criterion (line ${markdown.line}); ` +
        'to add settings to it, leave out description here'
    )
    return
  }
  const required = markdown.section === 'must'
  if (criterion.required !== undefined && criterion.required !== required) {
    atPath(
      [...path, 'required'],
      'type',
      `criterion "${given.id}": required: ${criterion.required} contradicts its Markdown section ` +
        `(## ${SECTION_HEADINGS[markdown.section]}, line ${markdown.line})`
    )
    return
  }
  markdown.frontMatterIndex = index
  if (given.settings) markdown.settings = given.settings
  if (given.failed) markdown.failed = true
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
