import * as core from '@actions/core'
import { randomUUID } from 'node:crypto'
import type { CouncilProgress } from '../council/council.js'
import type { GateLog } from '../gates/types.js'
import type { ActionIO } from './io.js'
import type { RunningWorkflow } from './machinery.js'
import { councilStartLine, judgeLine, extraVoteLine } from '../report/progress.js'

/**
 * Gate output in the job log: one collapsible group per gate. The output is the pull request's
 * own code talking, so workflow commands in it (`::error::`, `::add-mask::`, …) are suspended
 * with an unguessable token for the length of the group.
 */
export function actionsGateLog(
  write: (text: string) => void = text => process.stdout.write(text)
): GateLog {
  let token: string | undefined
  let atLineStart = true
  const emit = (text: string): void => {
    if (text === '') return
    write(text)
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

/**
 * The council's progress in the job log: who is asked, then each judge as it answers, and every
 * 15 s whom it still waits for. A member retiring within 30 days is a warning (an annotation).
 */
export function councilProgress(io: ActionIO): CouncilProgress {
  return {
    started: calls => {
      io.info(councilStartLine(calls))
    },
    finished: run => {
      io.info(judgeLine(run))
    },
    extraVote: (call, criteria) => {
      io.info(extraVoteLine(call, criteria))
    },
    waiting: line => {
      io.info(line)
    },
    retiring: line => {
      io.warning(`Rubric Council: ${line}`)
    }
  }
}

/**
 * The log line of a run by a workflow of another repository (an organisation ruleset's required
 * workflow): which one, and what that changes for the machinery check.
 */
export function centralWorkflowLine(workflow: RunningWorkflow): string {
  return `Rubric Council: run by ${workflow.repository}/${workflow.path}@${workflow.ref}, a workflow of another repository (required by a ruleset), which this pull request cannot change: its changes to .github/workflows/ are judged like any other file.`
}
