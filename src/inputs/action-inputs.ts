import { parseModelList } from '../council/members.js'
import { DEFAULT_MAX_EVIDENCE_TOKENS } from '../evidence/build.js'
import { EVIDENCE_ORDERS, type EvidenceOrder } from '../evidence/types.js'
import { DEFAULT_CHECK_NAME } from '../publish/memory.js'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { FAIL_ON, type FailOn } from '../publish/outcome.js'
import type { PublicationSettings } from '../publish/plan.js'
import type { SkipRules } from '../engine/skip.js'

/** A bad action input; the message quotes the value and says what would be accepted. */
export class InputError extends Error {
  override readonly name = 'InputError'
  readonly input: string
  readonly value: string

  constructor(input: string, value: string, expected: string) {
    super(`input "${input}" is ${JSON.stringify(value)}; expected ${expected}`)
    this.input = input
    this.value = value
  }
}

export const RUBRIC_SOURCES = ['base', 'head'] as const
export const COMMENT_MODES = ['sticky', 'off'] as const
/** `run`: the action runs the gates (single job); `recorded`: the gates sub-action did. */
export const GATE_MODES = ['run', 'recorded'] as const

/** The action's inputs, typed and checked (action.yml). */
export interface ActionInputs {
  readonly rubric: string
  readonly checker?: string
  readonly failOn: FailOn
  readonly workingDirectory: string
  /** `provider:model` members; empty: the rubric's, else one per key present. */
  readonly models: readonly string[]
  readonly samples?: number
  readonly maxEvidenceTokens: number
  /** The order of the files shown to the judges (`evidence-order`). */
  readonly evidenceOrder: EvidenceOrder
  readonly exclude: readonly string[]
  readonly rubricSource: (typeof RUBRIC_SOURCES)[number]
  readonly comment: (typeof COMMENT_MODES)[number]
  readonly checkName: string
  /** Empty when no token is given: nothing is written to GitHub then. */
  readonly githubToken: string
  /** For workflow_dispatch: the pull request to review. */
  readonly pullRequest: string
  /**
   * The workflow file that runs on a pull request's `pull_request` event (the split layout's, or
   * the fork layout's gates): the bot re-runs its latest run for a pull request to review it
   * again, when the base rubric changes and on `/council rerun`.
   */
  readonly reviewWorkflow: string
  /** Evaluate fully, write nothing to GitHub, print what would be posted. */
  readonly dryRun: boolean
  readonly gates: (typeof GATE_MODES)[number]
  /** Run the gates (`gates: run`) beside provider keys or a write token: the workflow opted in. */
  readonly allowGatesWithSecrets: boolean
  /** The job that ran the gates sub-action, whose conclusion the recorded results must agree with. */
  readonly gatesJob: string
  /** When the check is skipped (concluding `success`, "skipped: …") instead of run: see skip.ts. */
  readonly skip: SkipRules
  /** On `schedule`, the most pull requests the bot re-verifies after a provider outage. */
  readonly healLimit: number
  /** Ask the judges once a gate has failed, for their feedback (`judge-after-failed-gate`). */
  readonly judgeAfterFailedGate: boolean
}

/** `heal-limit` when not set. */
export const DEFAULT_HEAL_LIMIT = 10

/** `getInput` returns '' for an input that is not set, as `@actions/core` does. */
export type GetInput = (name: string) => string

export function readActionInputs(getInput: GetInput): ActionInputs {
  const rubric = getInput('rubric').trim() || DEFAULT_RUBRIC_PATH
  const checker = getInput('checker')
  const workingDirectory = getInput('working-directory').trim() || '.'
  if (rubric.includes('\n')) throw new InputError('rubric', rubric, 'one path to a rubric file')
  const { models, problems } = parseModelList(getInput('models'))
  if (problems.length > 0) {
    throw new InputError(
      'models',
      getInput('models'),
      `provider:model entries (${problems.join('; ')})`
    )
  }
  const samples = optionalInteger(getInput, 'samples', 1, 10)
  return {
    rubric,
    failOn: oneOf('fail-on', getInput('fail-on').trim() || 'unclear', FAIL_ON),
    workingDirectory,
    models,
    ...(samples !== undefined && { samples }),
    maxEvidenceTokens:
      optionalInteger(getInput, 'max-evidence-tokens', 1000, 10_000_000) ??
      DEFAULT_MAX_EVIDENCE_TOKENS,
    evidenceOrder: oneOf(
      'evidence-order',
      getInput('evidence-order').trim() || 'diff',
      EVIDENCE_ORDERS
    ),
    rubricSource: oneOf(
      'rubric-source',
      getInput('rubric-source').trim() || 'base',
      RUBRIC_SOURCES
    ),
    comment: oneOf('comment', getInput('comment').trim() || 'sticky', COMMENT_MODES),
    checkName: checkName(getInput('check-name')),
    githubToken: token(getInput('github-token')),
    pullRequest: getInput('pull-request').trim(),
    reviewWorkflow: workflowFile(getInput('review-workflow')),
    dryRun: flag(getInput, 'dry-run'),
    gates: oneOf('gates', getInput('gates').trim() || 'run', GATE_MODES),
    allowGatesWithSecrets: flag(getInput, 'allow-gates-with-secrets'),
    gatesJob: jobName(getInput('gates-job')),
    exclude: globList(getInput('exclude')),
    skip: {
      drafts: flag(getInput, 'skip-drafts'),
      bots: flag(getInput, 'skip-bots'),
      label: labelName(getInput('skip-label')),
      paths: globList(getInput('skip-paths'))
    },
    healLimit: optionalInteger(getInput, 'heal-limit', 0, 100) ?? DEFAULT_HEAL_LIMIT,
    judgeAfterFailedGate: flag(getInput, 'judge-after-failed-gate', 'true'),
    ...(checker.trim() !== '' && { checker })
  }
}

/** What the inputs say about what is published: the check's name, its failing, the comment. */
export function publicationSettings(inputs: ActionInputs): PublicationSettings {
  return {
    checkName: inputs.checkName,
    failOn: inputs.failOn,
    comment: inputs.comment === 'sticky'
  }
}

/** Globs, one per line or comma-separated. */
function globList(raw: string): string[] {
  return raw
    .split(/[\n,]/)
    .map(g => g.trim())
    .filter(g => g !== '')
}

/** `true` or `false`; `unset` when not set. */
function flag(getInput: GetInput, name: string, unset: 'true' | 'false' = 'false'): boolean {
  return oneOf(name, getInput(name).trim() || unset, ['true', 'false']) === 'true'
}

/** A label's name, on one line; '' when not set. */
function labelName(raw: string): string {
  const name = raw.trim()
  if (/[\r\n]/.test(name)) throw new InputError('skip-label', raw, "one label's name, on one line")
  return name
}

/**
 * Outside the runner (e.g. @github/local-action) the default `${{ github.token }}` arrives
 * unevaluated: that is no token.
 */
function token(raw: string): string {
  const value = raw.trim()
  return /^\$\{\{.*\}\}$/.test(value) ? '' : value
}

function checkName(raw: string): string {
  const name = raw.trim() || DEFAULT_CHECK_NAME
  if (!isCheckName(name)) throw new InputError('check-name', raw, CHECK_NAME_RULE)
  return name
}

/** What a check-name must be, the action's input or the CLI's `--check-name`. */
export const CHECK_NAME_RULE = 'one line of at most 100 characters'

export function isCheckName(name: string): boolean {
  return name.length <= 100 && !/[\r\n]/.test(name)
}

function jobName(raw: string): string {
  const name = raw.trim() || 'gates'
  if (name.length > 100 || /[\r\n]/.test(name)) {
    throw new InputError('gates-job', raw, 'the name of one job, on one line')
  }
  return name
}

/** A workflow's file name in .github/workflows, as the Actions API takes it for `workflow_id`. */
function workflowFile(raw: string): string {
  const name = raw.trim() || 'rubric-council.yml'
  if (!/^[\w.-]+\.ya?ml$/.test(name) || name.startsWith('.')) {
    throw new InputError(
      'review-workflow',
      raw,
      'the file name of a workflow in .github/workflows, such as rubric-council.yml'
    )
  }
  return name
}

/** A whole number within bounds, or undefined when the input is empty. */
export function optionalInteger(
  getInput: GetInput,
  name: string,
  min: number,
  max: number
): number | undefined {
  const raw = getInput(name).trim()
  if (raw === '') return undefined
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InputError(name, raw, `a whole number from ${min} to ${max}`)
  }
  return value
}

function oneOf<T extends string>(input: string, value: string, allowed: readonly T[]): T {
  const match = allowed.find(a => a === value.toLowerCase())
  if (match === undefined) throw new InputError(input, value, `one of ${allowed.join(', ')}`)
  return match
}
