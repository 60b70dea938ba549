import * as core from '@actions/core'
import { randomUUID } from 'node:crypto'
import type { GateLog } from '../gates/types.js'
import { maskForRunner } from './mask.js'

/** Where a problem with a file is shown: an annotation on the file, when there is one. */
export interface AnnotationPlace {
  readonly title: string
  readonly file?: string
  readonly startLine?: number
  readonly startColumn?: number
}

/**
 * How the action talks to the runner: the log, annotations, outputs, the job summary and the
 * step's result. `coreIO` speaks the runner's protocol through @actions/core; a test can record
 * what the action said instead, and run the action's flow in process.
 */
export interface ActionIO {
  /** A value never to be shown: the runner masks it in the log from now on. */
  readonly setSecret: (value: string) => void
  readonly info: (message: string) => void
  readonly notice: (message: string) => void
  readonly warning: (message: string) => void
  readonly error: (message: string, place?: AnnotationPlace) => void
  readonly group: (name: string, text: string) => void
  /** Where the gates' live output goes: a group per gate, its text as the gate writes it. */
  readonly gateLog: GateLog
  readonly setOutput: (name: string, value: string) => void
  /** The job summary; outside the runner (a local run) the log gets it. */
  readonly summary: (markdown: string) => Promise<void>
  /** Fails the step with `message`, exiting with `exitCode`. */
  readonly fail: (message: string, exitCode: number) => void
}

export function coreIO(): ActionIO {
  return {
    setSecret: value => {
      maskForRunner([value])
    },
    info: core.info,
    notice: core.notice,
    warning: core.warning,
    error: (message, place) => {
      core.error(message, place)
    },
    group: (name, text) => {
      core.startGroup(name)
      core.info(text)
      core.endGroup()
    },
    gateLog: actionsGateLog(),
    setOutput: core.setOutput,
    summary: async markdown => {
      if (process.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(markdown).write()
      else core.info(markdown)
    },
    fail: (message, exitCode) => {
      core.setFailed(message)
      process.exitCode = exitCode
    }
  }
}

/**
 * Gate output in the job log: one collapsible group per gate. The output is the pull request's
 * own code talking, so workflow commands in it (`::error::`, `::add-mask::`, …) are suspended
 * with an unguessable token for the length of the group.
 */
function actionsGateLog(): GateLog {
  let token: string | undefined
  let atLineStart = true
  const emit = (text: string): void => {
    if (text === '') return
    process.stdout.write(text)
    atLineStart = text.endsWith('\n')
  }
  return {
    startGroup: name => {
      core.startGroup(name)
      token = randomUUID()
      emit(`::stop-commands::${token}\n`)
    },
    write: emit,
    endGroup: () => {
      if (!atLineStart) emit('\n')
      if (token !== undefined) emit(`::${token}::\n`)
      token = undefined
      core.endGroup()
    }
  }
}
