import type { RubricScope } from './paths.js'
/** The validated, normalised rubric every later stage works from. */

import type { RubricChange } from './diff.js'

export type RubricSourceKind = 'file' | 'checker'

export interface RubricSource {
  /** Path as the user named it (or the materialised file for checker sugar). */
  readonly path: string
  readonly kind: RubricSourceKind
}

export interface Gate {
  readonly command: string
  /** Seconds; the rubric's `gates.timeout` unless the gate sets its own. */
  readonly timeout: number
  readonly line: number
}

export interface GateOptions {
  readonly timeout: number
  /** 1 runs gates one after another; n > 1 runs up to n at once. */
  readonly parallel: number
  readonly workingDirectory: string
}

export interface ScoreRange {
  readonly min: number
  readonly max: number
  readonly expectedOutcome: string
}

export type CriterionSection = 'must' | 'nice'

export interface Criterion {
  readonly id: string
  readonly description: string
  readonly required: boolean
  readonly weight: number
  readonly section: CriterionSection
  /** Present for score-range criteria, sorted by `min`, covering 0–10. */
  readonly scoreRanges?: readonly ScoreRange[]
  readonly requiredMinScore?: number
  readonly line: number
}

export interface Anchor {
  readonly min: number
  readonly max: number
  readonly label: string
  readonly description: string
}

export interface Dimension {
  readonly name: string
  readonly description: string
  /** As written; `normalisedWeight` sums to 1 over the rubric's dimensions. */
  readonly weight: number
  readonly normalisedWeight: number
  readonly anchors: readonly Anchor[]
}

export type FocusArea = 'security' | 'performance' | 'accessibility'

interface Focus {
  readonly area: FocusArea
  readonly checks: readonly string[]
  readonly redFlags: readonly string[]
}

export interface Thresholds {
  readonly pass: number
  readonly fail: number
  readonly confidence: number
}

/** How much a judge reasons before it answers; each provider is sent its own setting. */
export type ReasoningEffort = 'low' | 'medium' | 'high'

/** A judge's own settings (docs/council.md#members). */
export interface MemberSettings {
  /** Its context window in tokens, for a model the table does not know. */
  readonly window?: number
  /** The cap on its answer, reasoning included, in place of the one sized from the rubric. */
  readonly maxOutputTokens?: number
  /** The temperature sent, in place of its provider's default. */
  readonly temperature?: number
}

export interface CouncilConfig {
  /** Empty when the rubric leaves the choice to the action input or the keys present. */
  readonly models: readonly string[]
  /** `council.reasoning`: the effort of every member that names none; undefined: each provider's. */
  readonly reasoning?: ReasoningEffort
  /**
   * The efforts members and reserves name for themselves (`{ model, reasoning }` in
   * `council.models` or `council.reserve`), by
   * `provider:model` as written there; absent when none does.
   */
  readonly memberReasoning?: Readonly<Record<string, ReasoningEffort>>
  /**
   * What members and reserves set for themselves besides an effort (`window`, `max_output_tokens`,
   * `temperature`), by `provider:model` as written; absent when none does.
   */
  readonly memberSettings?: Readonly<Record<string, MemberSettings>>
  /** Undefined: the action input `samples`, else 1. */
  readonly samples?: number
  /** Undefined: a majority of members × samples. */
  readonly quorum?: number
  /** Seconds one judge request may take; undefined: the default. */
  readonly timeout?: number
  /**
   * `council.reserve`: judges asked only for an extra vote, in order, each at most once; by
   * `provider:model` as written there.
   */
  readonly reserve: readonly string[]
  /**
   * `council.max_extra_votes`: extra calls, one at a time, each to a voter that has not voted on the
   * must-haves it is asked about, until each has a lead of two votes (docs/verdict.md).
   */
  readonly maxExtraVotes: number
}

export type { RubricScope }

export interface Rubric {
  readonly source: RubricSource
  /** sha256 of the file's bytes, first 12 hex digits. */
  readonly hash: string
  /** The file's text (for sugar, the materialised Markdown). */
  readonly text: string
  readonly title?: string
  /** Prose before the first section, given to the judges with the notes. */
  readonly preamble: string
  readonly gates: readonly Gate[]
  readonly gateOptions: GateOptions
  readonly criteria: readonly Criterion[]
  readonly notes: string
  readonly dimensions: readonly Dimension[]
  readonly accuracyCeiling: boolean
  readonly focus: readonly Focus[]
  readonly thresholds: Thresholds
  readonly council: CouncilConfig
  readonly blocking: 'majority' | 'any'
  /**
   * `required`: a must-have blocks only while the calibration record (read where the rubric is)
   * recommends `block` for it and is current; absent: every must-have blocks (docs/calibration.md).
   */
  readonly calibration?: 'required'
  readonly scoreWeights: { readonly dimensions: number; readonly criteria: number }
  readonly minCoverage: number
  readonly exclude: readonly string[]
  /** The rubrics this file's `extends` names, as written, in order. */
  readonly extends: readonly Upstream[]
  /**
   * `name`: the rubric's name among several (its check run is `rubric-council / <name>`); the
   * file's stem when absent (docs/rubric.md#several-rubrics).
   */
  readonly name?: string
  /** `paths` and `paths-ignore`: the changed files it is about; neither: every file. */
  readonly scope: RubricScope
  /** Set when the rubrics it extends were read and merged in: what came from them. */
  readonly inherited?: Inheritance
}

/** A rubric named by `extends`: `owner/repo/path@ref`, and where the file names it. */
export interface Upstream {
  readonly spec: string
  readonly line: number
  readonly column?: number
}

export interface Inheritance {
  /** Every rubric merged in, nearest first (`extends` of `extends` too). */
  readonly from: readonly string[]
  /** Each inherited rule this file overrides, in the diff's words; a must-have changed weakens. */
  readonly overrides: readonly RubricChange[]
  readonly weakened: boolean
}
