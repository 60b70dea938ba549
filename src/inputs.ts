import { DEFAULT_RUBRIC_PATH } from './rubric/defaults.js'

/** A bad action input; the message quotes the value and says what would be accepted. */
export class InputError extends Error {
  override readonly name = 'InputError'
  constructor(
    readonly input: string,
    readonly value: string,
    readonly expected: string
  ) {
    super(`input "${input}" is ${JSON.stringify(value)}; expected ${expected}`)
  }
}

/** The action's inputs, typed and checked (SPEC §7). */
export interface ActionInputs {
  readonly rubric: string
  readonly checker?: string
  readonly workingDirectory: string
}

/** `getInput` returns '' for an input that is not set, as `@actions/core` does. */
export type GetInput = (name: string) => string

export function readActionInputs(getInput: GetInput): ActionInputs {
  const rubric = getInput('rubric').trim() || DEFAULT_RUBRIC_PATH
  const checker = getInput('checker')
  const workingDirectory = getInput('working-directory').trim() || '.'
  if (rubric.includes('\n')) throw new InputError('rubric', rubric, 'one path to a rubric file')
  return { rubric, workingDirectory, ...(checker.trim() !== '' && { checker }) }
}
