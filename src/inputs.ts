import { DEFAULT_RUBRIC_PATH } from './rubric/defaults.js'

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

export const FAIL_ON = ['unclear', 'fail', 'never'] as const
export type FailOn = (typeof FAIL_ON)[number]

/** The action's inputs, typed and checked (SPEC §7). */
export interface ActionInputs {
  readonly rubric: string
  readonly checker?: string
  readonly failOn: FailOn
  readonly workingDirectory: string
}

/** `getInput` returns '' for an input that is not set, as `@actions/core` does. */
export type GetInput = (name: string) => string

export function readActionInputs(getInput: GetInput): ActionInputs {
  const rubric = getInput('rubric').trim() || DEFAULT_RUBRIC_PATH
  const checker = getInput('checker')
  const workingDirectory = getInput('working-directory').trim() || '.'
  if (rubric.includes('\n')) throw new InputError('rubric', rubric, 'one path to a rubric file')
  return {
    rubric,
    failOn: oneOf('fail-on', getInput('fail-on').trim() || 'unclear', FAIL_ON),
    workingDirectory,
    ...(checker.trim() !== '' && { checker })
  }
}

function oneOf<T extends string>(input: string, value: string, allowed: readonly T[]): T {
  const match = allowed.find(a => a === value.toLowerCase())
  if (match === undefined) throw new InputError(input, value, `one of ${allowed.join(', ')}`)
  return match
}
