import type { ActionIO, AnnotationPlace } from '../../src/action/io.js'

/** What the action told the runner, recorded: as the runner would show it. */
export interface RecordingIO extends ActionIO {
  /**
   * Log lines, with `notice:`, `warning:` and `error:` for annotations; groups as `[name] text`,
   * a gate's group as `[command] output` with the output as the gate wrote it.
   */
  readonly log: string[]
  readonly errors: { readonly message: string; readonly place?: AnnotationPlace }[]
  readonly outputs: Record<string, string>
  readonly secrets: string[]
  summaryText: string
  /** How the step ended: undefined while it has not failed. */
  failed: { readonly message: string; readonly exitCode: number } | undefined
}

export function recordingIO(): RecordingIO {
  const io: RecordingIO = {
    log: [],
    errors: [],
    outputs: {},
    secrets: [],
    summaryText: '',
    failed: undefined,
    setSecret: value => io.secrets.push(value),
    info: message => io.log.push(message),
    notice: message => io.log.push(`notice: ${message}`),
    warning: message => io.log.push(`warning: ${message}`),
    error: (message, place) => {
      io.log.push(`error: ${message}`)
      io.errors.push({ message, ...(place && { place }) })
    },
    group: (name, text) => io.log.push(`[${name}] ${text}`),
    gateLog: {
      startGroup: name => io.log.push(`[${name}] `),
      write: chunk => io.log.push(`${io.log.pop() ?? ''}${chunk}`),
      endGroup: () => undefined
    },
    setOutput: (name, value) => {
      io.outputs[name] = value
    },
    summary: markdown => {
      io.summaryText += markdown
      return Promise.resolve()
    },
    fail: (message, exitCode) => {
      io.log.push(`error: ${message}`)
      io.failed = { message, exitCode }
    }
  }
  return io
}
