import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import type { BaseFiles } from './github/base-files.js'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { prepareRun, type ActionDirs } from './action/context.js'
import type { Prepared } from './engine/run-preparation.js'
import {
  InputError,
  readActionInputs,
  type ActionInputs,
  type GetInput
} from './inputs/action-inputs.js'
import type { ActionIO } from './action/io.js'
import { internalError } from './action/publish.js'
import { chooseRubric, severalRubrics } from './action/rubric.js'
import { providerVariables } from './council/providers/index.js'
import { plannedRubric } from './engine/rubric-choice.js'
import { planRubrics } from './engine/rubric-set.js'
import { startDiff } from './evidence/git-source.js'
import { gateEnvironment } from './gates/environment.js'
import { gatesArtifact, GATES_FILE, writeRecord } from './gates/record.js'
import { gatesHere, type GateWaiting } from './gates/run.js'
import { notRun, readSetupCommands, runSetup, setupLabel } from './gates/setup.js'
import type { GateLog, GateResult } from './gates/types.js'
import type { PullRequestRun } from './github/event.js'
import type { GitHubPort } from './github/port.js'
import { formatIssue, type RubricIssue } from './rubric/errors.js'
import { parseRubric } from './rubric/parse.js'
import type { Rubric } from './rubric/types.js'
import { failed } from './util/result.js'
import type { Ticker } from './util/ticker.js'
import { maskSecrets, secretValues } from './util/secrets.js'

/** What the gates sub-action is given by the runner (src/gates-main.ts gives the real ones). */
export interface GatesShell {
  readonly env: NodeJS.ProcessEnv
  readonly getInput: GetInput
  readonly io: ActionIO
  /** The repository's GitHub through `token`; undefined without one. */
  readonly github: (token: string) => GitHubPort | undefined
  /** Uploads `file` as this workflow run's artifact `name` (the results service); its id, when said. */
  readonly upload: (name: string, file: string) => Promise<number | undefined>
  /** Ticks while a gate runs, for the log's heartbeat; none without it. */
  readonly ticker?: Ticker
}

/** The gates of each rubric, as recorded for the council job. */
interface RubricGates {
  readonly rubricHash: string
  readonly gates: GateResult[]
}

/**
 * The gates sub-action (gates/action.yml): the untrusted half of the split layout. Runs the
 * project's setup commands and the rubric's gates in the job that holds no secret, uploads their
 * results as the artifact the council job reads, and fails the step when one did not pass or the
 * upload failed. It gives no verdict: the council job does.
 */
export async function gatesAction(shell: GatesShell): Promise<void> {
  const { env, io } = shell
  const secrets = secretValues(env)
  for (const secret of secrets) io.setSecret(secret)
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd()
  const tempDir = join(env.RUNNER_TEMP ?? tmpdir(), 'rubric-council-gates')
  try {
    const inputs = readActionInputs(shell.getInput)
    const dirs = { workspace, tempDir, cwd: resolve(workspace, inputs.workingDirectory) }
    const github = shell.github(inputs.githubToken)
    const prepared = await prepareRun(env, inputs, dirs, github)
    if (prepared.kind === 'skip') {
      io.notice(`Rubric Council gates: ${prepared.message}`)
      return
    }
    const refused = prepared.kind === 'ready' ? gatesRefusal(prepared) : prepared.message
    if (prepared.kind === 'invalid' || refused !== undefined) {
      io.fail(`Rubric Council gates: ${refused ?? ''}`, 2)
      return
    }
    const { run } = prepared
    const { rubrics, problems } = await rubricsWithGates(
      github,
      prepared.base,
      run,
      inputs,
      dirs,
      env
    )
    const mask = (text: string): string => maskSecrets(text, secrets)
    const ran = await runGates(rubrics, {
      env,
      dirs,
      mask,
      log: io.gateLog,
      setup: shell.getInput('setup'),
      ...(shell.ticker && { waiting: { ticker: shell.ticker, now: Date.now, say: io.info } })
    })
    const file = await recordFile(tempDir, ran, run, env)
    io.setOutput('results-file', file)
    const results = [
      ...ran.setup.map(r => ({ ...r, command: setupLabel(r.command) })),
      ...ran.rubrics.flatMap(r => r.gates)
    ]
    const passed = problems.length === 0 && results.every(r => r.status === 'pass')
    io.setOutput('passed', String(passed))
    const attempt = Number(env.GITHUB_RUN_ATTEMPT ?? '1') || 1
    const uploaded = await uploadRecord(shell, file, attempt)
    conclude(io, { problems, results, uploaded })
  } catch (error) {
    if (error instanceof InputError) io.fail(`Rubric Council gates: ${error.message}`, 2)
    else internalError(error, io)
  }
}

/**
 * Why this step may not run the pull request's code, or undefined: only on a checkout of the pull
 * request, and only on pull_request, whose ref (refs/pull/N/merge), cache scope and token are the
 * pull request's own.
 */
function gatesRefusal(prepared: Extract<Prepared, { kind: 'ready' }>): string | undefined {
  const { run } = prepared
  const where =
    prepared.checkout === 'base'
      ? `the checkout is not the pull request's head ${run.pr.headSha.slice(0, 7)}`
      : run.event === 'pull_request'
        ? undefined
        : `the pull request's code would run with the ${run.event} run's ref, cache scope and token`
  return where === undefined
    ? undefined
    : `on ${run.event} ${where}: run the gates on pull_request, in a job without secrets (\`rubric-council init\`, or \`init --forks\` for pull requests from forks)`
}

/**
 * The setup commands, then each rubric's gates, one rubric after the other in the one checkout.
 * Nothing of the pull request runs when there is no gate to run; after a setup command that did
 * not pass, no gate runs.
 */
async function runGates(
  rubrics: readonly Rubric[],
  how: {
    readonly env: NodeJS.ProcessEnv
    readonly dirs: ActionDirs
    readonly mask: (text: string) => string
    readonly log: GateLog
    /** The `setup` input. */
    readonly setup: string
    readonly waiting?: GateWaiting
  }
): Promise<{ readonly setup: GateResult[]; readonly rubrics: RubricGates[] }> {
  const processes = {
    env: gateEnvironment(how.env, providerVariables()),
    log: how.log,
    mask: how.mask,
    cwd: how.dirs.cwd,
    ...(how.waiting && { waiting: how.waiting })
  }
  const first = rubrics.find(r => r.gates.length > 0)
  const setup =
    first === undefined
      ? []
      : await runSetup(readSetupCommands(how.setup), first.gateOptions.timeout, processes)
  const setupFailed = setup.find(r => r.status !== 'pass')
  const ran: RubricGates[] = []
  for (const rubric of rubrics) {
    ran.push({
      rubricHash: rubric.hash,
      gates: setupFailed
        ? rubric.gates.map(gate => notRun(gate, setupFailed))
        : await gatesHere(processes).results(rubric)
    })
  }
  return { setup, rubrics: ran }
}

/** The record of what ran, written to a fresh folder just before the upload reads it. */
async function recordFile(
  tempDir: string,
  ran: { readonly setup: GateResult[]; readonly rubrics: RubricGates[] },
  run: PullRequestRun,
  env: NodeJS.ProcessEnv
): Promise<string> {
  const [main, ...others] = ran.rubrics
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
  const record = writeRecord({
    repository: `${owner}/${repo}`,
    pullRequest: run.pr.number,
    headSha: run.pr.headSha,
    rubricHash: main?.rubricHash ?? null,
    setup: ran.setup,
    gates: main?.gates ?? [],
    others
  })
  await mkdir(tempDir, { recursive: true })
  const file = join(await mkdtemp(join(tempDir, 'record-')), GATES_FILE)
  await writeFile(file, record)
  return file
}

/**
 * How the step ends: failed when the rubric is unusable (2), when a setup command or gate did not
 * pass (1), or when the upload failed (1, said by `uploadRecord`).
 */
function conclude(
  io: ActionIO,
  outcome: {
    readonly problems: readonly RubricIssue[]
    readonly results: readonly GateResult[]
    readonly uploaded: boolean
  }
): void {
  const { problems, results, uploaded } = outcome
  const notPassed = results.filter(r => r.status !== 'pass')
  if (problems.length > 0) {
    for (const issue of problems) io.error(formatIssue(issue))
    io.fail('Rubric Council gates: the rubric is unusable; the council job will say why', 2)
  } else if (notPassed.length > 0) {
    const named = notPassed.map(r => `"${r.command}" (${r.status})`)
    io.fail(
      `Rubric Council gates: ${named.length} of ${results.length} did not pass: ${named.join(', ')}`,
      1
    )
  } else if (uploaded) {
    io.info(`Rubric Council gates: all ${results.length} passed; the council job gives the verdict`)
  }
}

/**
 * Uploads the results file as the artifact the council job reads. A failed upload fails the step:
 * the job's conclusion then tells the council not to believe whatever record the run holds (a
 * name already taken means something else uploaded one first).
 */
async function uploadRecord(shell: GatesShell, file: string, attempt: number): Promise<boolean> {
  const name = gatesArtifact(attempt)
  try {
    const id = await shell.upload(name, file)
    shell.io.info(
      `Rubric Council gates: the results are uploaded as artifact ${name} (${String(id)})`
    )
    return true
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    shell.io.fail(
      `Rubric Council gates: could not upload the results as artifact "${name}": ${message}`,
      1
    )
    return false
  }
}

/**
 * The rubrics whose gates this job runs: the one rubric, or with several (docs/rubric.md#several-
 * rubrics) each valid one that applies to the pull request, read as the council job reads them.
 * `problems`: the one rubric's when it is unusable (the step fails, as the council job will). With
 * several, an unusable one is left to its own check run: failing this job would make the council
 * job distrust every other rubric's results.
 */
async function rubricsWithGates(
  github: GitHubPort | undefined,
  base: BaseFiles | undefined,
  run: PullRequestRun,
  inputs: ActionInputs,
  dirs: ActionDirs,
  env: NodeJS.ProcessEnv
): Promise<{ rubrics: Rubric[]; problems: readonly RubricIssue[] }> {
  const several = await severalRubrics(base, inputs, dirs)
  if (several === undefined) {
    const choice = await chooseRubric(github, base, run, inputs, dirs)
    const parsed = choice.rubric.ok
      ? parseRubric(choice.rubric.value)
      : failed(choice.rubric.problem.issues)
    return parsed.ok
      ? { rubrics: [parsed.value], problems: [] }
      : { rubrics: [], problems: parsed.problem }
  }
  const read = await Promise.all(
    several.map(async file => {
      const choice = await chooseRubric(github, base, run, { ...inputs, rubric: file.path }, dirs)
      return { ...file, ...plannedRubric(choice) }
    })
  )
  const changed = await startDiff({
    cwd: dirs.workspace,
    baseSha: run.pr.baseSha,
    headSha: run.pr.headSha,
    auth: { serverUrl: env.GITHUB_SERVER_URL ?? 'https://github.com', token: inputs.githubToken }
  }).then(
    diff =>
      diff.files.flatMap(f => (f.previousPath === undefined ? [f.path] : [f.path, f.previousPath])),
    () => undefined
  )
  const rubrics = planRubrics(read, changed, inputs.checkName).flatMap(plan =>
    plan.applicable && plan.duplicateOf === undefined && plan.file.rubric ? [plan.file.rubric] : []
  )
  return { rubrics, problems: [] }
}
