import type { CouncilProgress } from '../council/council.js'
import type { ActionIO } from './io.js'
import type { RunningWorkflow } from './machinery.js'
import { councilStartLine, judgeLine, extraVoteLine, settledLine } from '../report/progress.js'

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
    settled: (calls, settledBy) => {
      io.info(settledLine(calls, settledBy))
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
