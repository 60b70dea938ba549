import { existsSync } from 'node:fs'
import { basename, join } from 'node:path'
import { LOCAL_FOLDER } from '../loop/session.js'
import { failed, ok, type Result } from '../util/result.js'
import type { ActionPin } from './pin.js'
import {
  detectTestCommand,
  EXAMPLE_RUBRIC_FILE,
  exampleRubric,
  starterRubric,
  targetRubricProblem
} from './rubrics.js'
import { detectSetup, type ProjectSetup } from './setup.js'
import {
  BOT_WORKFLOW_FILE,
  botWorkflow,
  forksWorkflows,
  GATES_WORKFLOW_FILE,
  RUBRIC_FILE,
  splitWorkflow,
  targetWorkflow,
  WORKFLOW_FILE
} from './workflows.js'

/** What `rubric-council init` is asked to write. */
export interface InitOptions {
  readonly force: boolean
  readonly forks: boolean
  readonly target?: boolean
  readonly calibrate?: boolean
  readonly rubrics?: boolean
}

/**
 * What `init` writes: a review layout (`split`, `forks` or `target`, each with its workflows, and
 * with `--rubrics` the example rubric among several too), or one file alone (`calibrate`: the
 * calibration workflow; `rubrics`: the example rubric, where init wrote the workflows before).
 */
export type InitLayout = 'split' | 'forks' | 'target' | 'calibrate' | 'rubrics'

/**
 * The layout the options ask for, or why they ask for none, in the words stderr shows:
 * `--calibrate` writes one file alone and combines with no other; `--rubrics` where the review
 * workflow exists writes the rubric alone (that review reads every rubric of the folder), unless
 * `--force` asks for the layout anew; `--target` refuses a rubric that has gates
 * (`targetRubricProblem`).
 */
export function chooseLayout(options: InitOptions, cwd: string): Result<InitLayout> {
  if (
    options.calibrate === true &&
    (options.forks || options.target === true || options.rubrics === true)
  ) {
    return failed(
      '--calibrate writes only the calibration workflow: run it apart from --forks, --target and --rubrics (see rubric-council init --help)'
    )
  }
  if (options.rubrics === true && !options.force && existsSync(join(cwd, WORKFLOW_FILE))) {
    return ok('rubrics')
  }
  if (options.target === true) {
    const problem = options.forks
      ? '--target and --forks are two layouts: choose one'
      : targetRubricProblem(cwd)
    return problem === undefined
      ? ok('target')
      : failed(`${problem} (see rubric-council init --help)`)
  }
  if (options.calibrate === true) return ok('calibrate')
  return ok(options.forks ? 'forks' : 'split')
}

/**
 * The files `init` writes into `cwd`, in the order it writes them: the starter rubric (and with
 * `rubrics` the example rubric among several) only where there is none (a rubric that exists is
 * never overwritten, `--force` or not), then the layout's workflows.
 */
export function initFiles(
  cwd: string,
  options: { readonly forks: boolean; readonly target?: boolean; readonly rubrics?: boolean },
  pin: ActionPin
): { readonly files: InitFile[]; readonly setup: ProjectSetup } {
  const setup = detectSetup(cwd)
  const starter = (): string =>
    options.target === true
      ? starterRubric(undefined, { gates: false })
      : starterRubric(detectTestCommand(cwd))
  // An existing rubric is the one the workflows are for: kept, whatever the layout or --force.
  const rubrics = [
    { path: RUBRIC_FILE, text: starter },
    ...(options.rubrics === true ? [{ path: EXAMPLE_RUBRIC_FILE, text: exampleRubric }] : [])
  ]
    .filter(r => !existsSync(join(cwd, r.path)))
    .map(r => ({ path: r.path, text: r.text() }))
  return { files: [...rubrics, ...layoutWorkflows(setup, options, pin)], setup }
}

/** A file `init` writes: its path, relative to the repository, and its text. */
export interface InitFile {
  readonly path: string
  readonly text: string
}

/** The workflows of the layout `options` choose. */
function layoutWorkflows(
  setup: ProjectSetup,
  options: { readonly forks: boolean; readonly target?: boolean },
  pin: ActionPin
): InitFile[] {
  if (options.target === true) return [{ path: WORKFLOW_FILE, text: targetWorkflow(pin) }]
  if (!options.forks) {
    return [
      { path: WORKFLOW_FILE, text: splitWorkflow(setup, pin) },
      { path: BOT_WORKFLOW_FILE, text: botWorkflow(basename(WORKFLOW_FILE), pin) }
    ]
  }
  const { gates, council } = forksWorkflows(setup, pin)
  return [
    { path: GATES_WORKFLOW_FILE, text: gates },
    { path: WORKFLOW_FILE, text: council },
    { path: BOT_WORKFLOW_FILE, text: botWorkflow(basename(GATES_WORKFLOW_FILE), pin) }
  ]
}

/** What `.gitignore` ignores for the loop's sessions (docs/agent-loop.md). */
export const SESSIONS_ROOT = `${LOCAL_FOLDER}/`

/** `.gitignore`'s text with the sessions ignored; undefined when it already ignores them. */
export function withSessionsIgnored(text: string): string | undefined {
  const listed = text
    .split(/\r?\n/)
    .some(line =>
      [LOCAL_FOLDER, SESSIONS_ROOT, `/${LOCAL_FOLDER}`, `/${SESSIONS_ROOT}`].includes(line.trim())
    )
  if (listed) return undefined
  return `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${SESSIONS_ROOT}\n`
}

/** Every workflow some layout of `init` writes. */
export const LAYOUT_WORKFLOWS = [WORKFLOW_FILE, GATES_WORKFLOW_FILE, BOT_WORKFLOW_FILE] as const

/**
 * The workflows of another layout that `exists` finds beside those written: they still run on
 * every pull request, which `init` says, and deletes nothing.
 */
export function otherLayoutWorkflows(
  written: readonly { readonly path: string }[],
  exists: (path: string) => boolean
): string[] {
  return LAYOUT_WORKFLOWS.filter(other => !written.some(f => f.path === other) && exists(other))
}
