import { z } from 'zod'
import { parseModelId, PROVIDERS } from './model-id.js'
import { DEFAULT_MAX_EXTRA_VOTES, MAX_EXTRA_VOTES } from './defaults.js'
import type { ReasoningEffort } from './types.js'

/**
 * The largest weight: far above any a rubric needs, and low enough that no sum of weights
 * overflows to Infinity (a score of Infinity / Infinity is NaN, which no threshold catches).
 */
export const MAX_WEIGHT = 1_000_000

/**
 * The front matter of a Markdown rubric, and the whole of a YAML rubric (docs/rubric.md).
 * Shapes only: rules that relate several fields (overlap, coverage, duplicate ids, fail ≤ pass)
 * are checked when the rubric is built (`build.ts` and the modules it calls), where they can see
 * the Markdown body too.
 */

// zod 4 numbers reject Infinity and NaN (YAML `.inf`, `.nan`), so no finiteness check is needed.

/** Letters (any script), digits, `-` and `_`. */
export const ID_PATTERN = /^[\p{L}\p{N}_-]+$/u

/** At most this many rubrics named by one `extends`, and this many levels of `extends` in all. */
export const MAX_EXTENDS = 5
export const MAX_EXTENDS_DEPTH = 3

const FOCUS_AREAS = ['security', 'performance', 'accessibility'] as const

const ScoreRangeItemSchema = z.strictObject({
  score_range: z
    .tuple([z.int().min(0).max(10), z.int().min(0).max(10)])
    .describe('[low, high]: integers within 0–10, low ≤ high'),
  expected_outcome: z.string().min(1).describe('What a submission scoring in this range looks like')
})

const ScoreRangesSchema = z
  .union([
    z.array(ScoreRangeItemSchema).min(1),
    z.record(
      z.string().regex(/^(?:[0-9]|10)$/),
      z.string().min(1).describe('Expected outcome from this score up to the next band')
    )
  ])
  .describe(
    'Integer score bands over 0–10 that must not overlap and must cover every score; ' +
      'either a list of {score_range, expected_outcome} or a map from band start to outcome ' +
      '(the first start must be 0)'
  )

export const CriterionSchema = z
  .strictObject({
    id: z
      .string()
      .regex(ID_PATTERN)
      .optional()
      .describe('Letters, digits, - and _; defaults to a slug of the description'),
    description: z.string().min(1).optional().describe('What the judges check'),
    required: z
      .boolean()
      .optional()
      .describe('Must-have (true, the default) or nice-to-have (false)'),
    weight: z
      .number()
      .min(0)
      .max(MAX_WEIGHT)
      .optional()
      .describe('Weight in the criteria score; default 1 for must-haves, 0 for nice-to-haves'),
    required_min_score: z
      .int()
      .min(0)
      .max(10)
      .optional()
      .describe('Score-range criteria only: a median score below this fails the PR'),
    score_ranges: ScoreRangesSchema.optional()
  })
  .describe(
    'A criterion; with the id of a Markdown criterion and no description, it adds these settings to it'
  )

const GateCommandSchema = z.union([
  z.string().min(1),
  z.strictObject({
    run: z.string().min(1).describe('Command, run with bash -eo pipefail -c'),
    timeout: z.number().positive().optional().describe('Seconds; overrides gates.timeout')
  })
])

const GatesSchema = z.union([
  z.array(GateCommandSchema).describe('Gate commands'),
  z
    .strictObject({
      commands: z.array(GateCommandSchema).optional().describe('Gate commands'),
      timeout: z.number().positive().optional().describe('Seconds each gate may run (default 600)'),
      parallel: z
        .union([z.boolean(), z.int().min(1)])
        .optional()
        .describe('false (default) runs gates one by one; true up to 4 at once; n up to n at once'),
      working_directory: z
        .string()
        .min(1)
        .optional()
        .describe('Directory the gates run in, relative to the working directory')
    })
    .describe('Gate options')
])

export const DimensionSchema = z.union([
  z.number().positive().max(MAX_WEIGHT).describe('Weight'),
  z.strictObject({
    weight: z.number().positive().max(MAX_WEIGHT).optional(),
    description: z.string().min(1).optional().describe('Required for a dimension not built in')
  })
])

const DimensionsSchema = z
  .union([
    z.literal('default'),
    z.boolean(),
    z.record(z.string().regex(ID_PATTERN), DimensionSchema)
  ])
  .describe(
    '`default` (accuracy, completeness, clarity, conciseness, relevance), `false` for none, ' +
      'or a map of the dimensions to use: name to weight, or to {weight, description}'
  )

const unitInterval = z.number().min(0).max(1)

export const ThresholdsSchema = z
  .strictObject({
    pass: unitInterval.optional().describe('Overall score needed to PASS (default 0.8)'),
    fail: unitInterval.optional().describe('Overall score below which the PR FAILs (default 0.6)'),
    confidence: unitInterval
      .optional()
      .describe('Judge agreement below which the verdict is UNCLEAR (default 0.7)')
  })
  .describe('0–1 each; fail must not exceed pass')

/** How much a judge reasons before it answers (docs/council.md says what each provider is sent). */
export const REASONING_EFFORTS = [
  'low',
  'medium',
  'high'
] as const satisfies readonly ReasoningEffort[]

const ReasoningSchema = z
  .enum(REASONING_EFFORTS)
  .describe(
    'How much the judge reasons before it answers: low, medium or high; each provider is sent its own setting (docs/council.md)'
  )

const ModelIdSchema = z
  .string()
  .min(1)
  .superRefine((text, ctx) => {
    const parsed = parseModelId(text)
    if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.problem })
  })

const CouncilMemberSchema = z.union([
  ModelIdSchema.describe('A judge as provider:model'),
  z
    .strictObject({
      model: ModelIdSchema.describe('provider:model'),
      reasoning: ReasoningSchema.optional(),
      window: z
        .int()
        .min(1024)
        .max(100_000_000)
        .optional()
        .describe(
          'Its context window in tokens, for a model the model table does not know (a self-hosted one): the prompt is sized to it'
        ),
      max_output_tokens: z
        .int()
        .min(256)
        .max(1_000_000)
        .optional()
        .describe(
          'The most its answer may take, reasoning included (default: sized from the rubric, docs/council.md#answer-caps)'
        ),
      temperature: z
        .number()
        .min(0)
        .max(2)
        .optional()
        .describe(
          'The sampling temperature sent to it (default: 0 for ollama and openai-compatible, none for the cloud providers)'
        )
    })
    .describe('A judge with settings of its own')
])

export const CouncilSchema = z.strictObject({
  models: z
    .array(CouncilMemberSchema)
    .optional()
    .describe(
      `Judges as provider:model, or {model, reasoning, window, max_output_tokens, temperature}; providers: ${PROVIDERS.join(', ')}`
    ),
  reasoning: ReasoningSchema.optional().describe(
    'The reasoning effort of every judge that sets none of its own: low, medium or high (default: each provider’s, docs/council.md)'
  ),
  samples: z.int().min(1).max(10).optional().describe('Answers asked of each judge (default 1)'),
  quorum: z
    .int()
    .min(1)
    .optional()
    .describe('Valid answers needed (default: a majority of judges × samples)'),
  timeout: z
    .int()
    .min(1)
    .max(3600)
    .optional()
    .describe('Seconds one judge request may take (default 180)'),
  reserve: z
    .array(CouncilMemberSchema)
    .optional()
    .describe(
      'Judges asked only for an extra vote on a must-have the members are not agreed on, each at most once; provider:model, or {model, reasoning}'
    ),
  max_extra_votes: z
    .int()
    .min(0)
    .max(MAX_EXTRA_VOTES)
    .optional()
    .describe(
      `Extra judge calls, one at a time, to confirm a must-have the judges are not agreed on (default ${DEFAULT_MAX_EXTRA_VOTES})`
    ),
  tie_breaks: z
    .int()
    .min(0)
    .max(MAX_EXTRA_VOTES)
    .optional()
    .meta({ deprecated: true })
    .describe('Deprecated: the old name of max_extra_votes')
})

const FocusSchema = z.enum(FOCUS_AREAS)

/** `owner/repo/path@ref`: a rubric in another repository, at a tag or a full commit SHA. */
export const EXTENDS_PATTERN =
  /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})\/((?:[^@\s/]+\/)*[^@\s/]+\.(?:md|ya?ml))@([^@\s]+)$/

const ExtendsSchema = z
  .string()
  .regex(EXTENDS_PATTERN)
  .describe(
    'owner/repo/path@ref: a rubric in another repository, read through the API at a tag or a full commit SHA'
  )

/** A rubric's name: shown in its check run's name, so letters, digits, spaces, `.`, `_` and `-`. */
export const RUBRIC_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._ -]{0,62}[A-Za-z0-9._-]$|^[A-Za-z0-9]$/

const PathPatterns = z.array(z.string().min(1)).min(1)

/** Every top-level key, each validated on its own so one bad key does not hide the others' errors. */
export const FRONT_MATTER_SHAPE = {
  $schema: z.string().optional().describe('Where editors find this schema; ignored'),
  title: z.string().min(1).optional(),
  criteria: z.array(CriterionSchema).optional(),
  gates: GatesSchema.optional(),
  notes: z.string().optional().describe('Context for the judges, not scored'),
  dimensions: DimensionsSchema.optional(),
  accuracy_ceiling: z
    .boolean()
    .optional()
    .describe('Cap the overall score when median accuracy is low (default true)'),
  focus: z
    .union([FocusSchema, z.array(FocusSchema)])
    .optional()
    .describe('Adds the domain checks and red flags to the judges’ instructions'),
  thresholds: ThresholdsSchema.optional(),
  council: CouncilSchema.optional(),
  blocking: z
    .enum(['majority', 'any'])
    .optional()
    .describe('Whether a majority of judges (default) or any one must report a blocking finding'),
  calibration: z
    .enum(['required'])
    .optional()
    .describe(
      'required: a must-have blocks only while the calibration record beside the rubric, read from the base branch, recommends block for it and is current (same criterion text, council and prompt); otherwise its FAIL or SPLIT is advisory (docs/calibration.md)'
    ),
  score_weights: z
    .strictObject({
      dimensions: z.number().min(0).max(MAX_WEIGHT).optional(),
      criteria: z.number().min(0).max(MAX_WEIGHT).optional()
    })
    .optional()
    .describe('Weights of the dimensions score and the criteria score in the overall score'),
  min_coverage: unitInterval
    .optional()
    .describe('Share of reviewable changed files the judges must see (default 1)'),
  exclude: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Globs of files never sent to the judges (secret files are sent with their credentials redacted)'
    ),
  name: z
    .string()
    .regex(RUBRIC_NAME_PATTERN)
    .optional()
    .describe(
      'The rubric’s name among several: its check run is "rubric-council / <name>" (default: the file’s name without its extension)'
    ),
  paths: PathPatterns.optional().describe(
    'The rubric applies when a changed file matches one of these patterns (the syntax of on.pull_request.paths); its judges see the files it matches'
  ),
  'paths-ignore': PathPatterns.optional().describe(
    'The rubric applies when a changed file matches none of these patterns (the syntax of on.pull_request.paths-ignore)'
  ),
  extends: z
    .union([ExtendsSchema, z.array(ExtendsSchema).min(1).max(MAX_EXTENDS)])
    .optional()
    .describe(
      'Rubrics this one adds to (docs/rubric.md#extends): their gates, criteria and settings apply too; an item with the same id here overrides the inherited one'
    )
} as const

export const FrontMatterSchema = z
  .strictObject(FRONT_MATTER_SHAPE)
  .describe('A Rubric Council rubric: the front matter of a Markdown rubric, or a YAML rubric')

export type FrontMatter = z.output<typeof FrontMatterSchema>
export type RawCriterion = z.output<typeof CriterionSchema>
export type RawScoreRanges = z.output<typeof ScoreRangesSchema>
