import { failed } from './util/result.js'
import { DefaultArtifactClient } from '@actions/artifact'
import * as core from '@actions/core'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { prepareRun } from './action/context.js'
import type { BaseFiles } from './github/base-files.js'
import { InputError, readActionInputs } from './action/inputs.js'
import { actionsGateLog } from './action/log.js'
import { coreIO } from './action/io.js'
import { internalError } from './action/publish.js'
import type { ActionDirs } from './action/context.js'
import type { ActionInputs } from './action/inputs.js'
import { chooseRubric, severalRubrics } from './action/rubric.js'
import { plannedRubric } from './engine/rubric-choice.js'
import { planRubrics } from './engine/rubric-set.js'
import { startDiff } from './evidence/git-source.js'
import type { PullRequestRun } from './github/event.js'
import type { GitHubPort } from './github/port.js'
import type { RubricIssue } from './rubric/errors.js'
import type { Rubric } from './rubric/types.js'
import { providerVariables } from './council/providers/index.js'
import { gateEnvironment } from './gates/environment.js'
import { gatesArtifact, GATES_FILE, writeRecord } from './gates/record.js'
import { gatesHere } from './gates/run.js'
import { notRun, readSetupCommands, runSetup, setupLabel } from './gates/setup.js'
import type { GateResult } from './gates/types.js'
import { actionGitHub } from './github/port.js'
import { formatIssue } from './rubric/errors.js'
import { parseRubric } from './rubric/parse.js'
import { maskSecrets, secretValues } from './util/secrets.js'

/**
 * The gates sub-action (gates/action.yml): the untrusted half of the split layout. Runs the
 * project's setup commands and the rubric's gates in the job that holds no secret, uploads their
 * results as the artifact the council job reads, and fails the step when one did not pass or the
 * upload failed. It gives no verdict: the council job does.
 *
 * Everything it runs after the pull request's code (the upload) is already loaded: the bundle
 * imports each of its chunks at start (scripts/bundle.mjs), so a setup command that rewrites the
 * runner's copy of this action changes nothing this process does, and no step after it is needed.
 */
export async function runGatesAction(): Promise<void> {
  const artifacts = new DefaultArtifactClient()
  const env = process.env
  const secrets = secretValues(env)
  for (const secret of secrets) core.setSecret(secret)
  const workspace = env.GITHUB_WORKSPACE ?? process.cwd()
  const tempDir = join(env.RUNNER_TEMP ?? tmpdir(), 'rubric-council-gates')
  try {
    const inputs = readActionInputs(name => core.getInput(name))
    const dirs = { workspace, tempDir, cwd: resolve(workspace, inputs.workingDirectory) }
    const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/')
    const github = actionGitHub(env, inputs.githubToken, core.warning)
    const prepared = await prepareRun(env, inputs, dirs, github)
    if (prepared.kind === 'skip') {
      core.notice(`Rubric Council gates: ${prepared.message}`)
      return
    }
    if (prepared.kind === 'invalid') {
      core.setFailed(`Rubric Council gates: ${prepared.message}`)
      process.exitCode = 2
      return
    }
    const { run } = prepared
    // This step runs the pull request's code: only on a checkout of the pull request, and only on
    // pull_request, whose ref (refs/pull/N/merge), cache scope and token are the pull request's own.
    const where =
      prepared.checkout === 'base'
        ? `the checkout is not the pull request's head ${run.pr.headSha.slice(0, 7)}`
        : run.event === 'pull_request'
          ? undefined
          : `the pull request's code would run with the ${run.event} run's ref, cache scope and token`
    if (where !== undefined) {
      core.setFailed(
        `Rubric Council gates: on ${run.event} ${where}: run the gates on pull_request, in a job without secrets (\`rubric-council init\`, or \`init --forks\` for pull requests from forks)`
      )
      process.exitCode = 2
      return
    }
    const { rubrics, problems } = await rubricsWithGates(
      github,
      prepared.base,
      run,
      inputs,
      dirs,
      env
    )
    const processes = {
      env: gateEnvironment(env, providerVariables()),
      log: actionsGateLog(),
      mask: (text: string) => maskSecrets(text, secrets)
    }
    // Nothing of the pull request runs when there is no gate to run.
    const first = rubrics.find(r => r.gates.length > 0)
    const setup =
      first === undefined
        ? []
        : await runSetup(readSetupCommands(core.getInput('setup')), first.gateOptions.timeout, {
            ...processes,
            cwd: dirs.cwd
          })
    const setupFailed = setup.find(r => r.status !== 'pass')
    // Several rubrics: one after the other, in the one checkout.
    const ran: { rubricHash: string; gates: GateResult[] }[] = []
    for (const rubric of rubrics) {
      ran.push({
        rubricHash: rubric.hash,
        gates: setupFailed
          ? rubric.gates.map(gate => notRun(gate, setupFailed))
          : await gatesHere({ ...processes, cwd: dirs.cwd }).results(rubric)
      })
    }
    const [main, ...others] = ran
    const record = writeRecord({
      repository: `${owner}/${repo}`,
      pullRequest: run.pr.number,
      headSha: run.pr.headSha,
      rubricHash: main?.rubricHash ?? null,
      setup,
      gates: main?.gates ?? [],
      others
    })
    await mkdir(tempDir, { recursive: true })
    // A fresh folder, written just before the upload reads it.
    const file = join(await mkdtemp(join(tempDir, 'record-')), GATES_FILE)
    await writeFile(file, record)
    core.setOutput('results-file', file)
    const results = [
      ...setup.map(r => ({ ...r, command: setupLabel(r.command) })),
      ...ran.flatMap(r => r.gates)
    ]
    const passed = problems.length === 0 && results.every(r => r.status === 'pass')
    core.setOutput('passed', String(passed))
    const uploaded = await uploadRecord(artifacts, file, Number(env.GITHUB_RUN_ATTEMPT ?? '1') || 1)
    if (problems.length > 0) {
      for (const issue of problems) core.error(formatIssue(issue))
      core.setFailed('Rubric Council gates: the rubric is unusable; the council job will say why')
      process.exitCode = 2
    } else if (!passed) {
      const failed = results
        .filter(r => r.status !== 'pass')
        .map(r => `"${r.command}" (${r.status})`)
      core.setFailed(
        `Rubric Council gates: ${failed.length} of ${results.length} did not pass: ${failed.join(', ')}`
      )
      process.exitCode = 1
    } else if (uploaded) {
      core.info(
        `Rubric Council gates: all ${results.length} passed; the council job gives the verdict`
      )
    }
    if (!uploaded) process.exitCode = process.exitCode ?? 1
  } catch (error) {
    if (error instanceof InputError) {
      core.setFailed(`Rubric Council gates: ${error.message}`)
      process.exitCode = 2
    } else internalError(error, coreIO())
  }
}

/**
 * Uploads the results file as the artifact the council job reads. A failed upload fails the step:
 * the job's conclusion then tells the council not to believe whatever record the run holds (a
 * name already taken means something else uploaded one first).
 */
async function uploadRecord(
  artifacts: DefaultArtifactClient,
  file: string,
  attempt: number
): Promise<boolean> {
  const name = gatesArtifact(attempt)
  try {
    const { id } = await artifacts.uploadArtifact(name, [file], dirname(file))
    core.info(`Rubric Council gates: the results are uploaded as artifact ${name} (${String(id)})`)
    return true
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    core.setFailed(
      `Rubric Council gates: could not upload the results as artifact "${name}": ${message}`
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
