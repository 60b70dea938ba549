// The action's inputs are read and checked in src/inputs/action-inputs.ts, without I/O; the
// action's modules take them from here.
export {
  InputError,
  readActionInputs,
  type ActionInputs,
  type GetInput
} from '../inputs/action-inputs.js'
