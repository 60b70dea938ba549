import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCouncil } from '../council/council.js'
import { parseModelList } from '../council/members.js'
import { providerVariables } from '../council/providers/index.js'
import { evaluate, type EnginePorts } from '../engine/evaluate.js'
import type { RubricChoice } from '../engine/rubric-choice.js'
import { DEFAULT_MAX_EVIDENCE_TOKENS } from '../evidence/build.js'
import { localEvidence } from '../evidence/git-source.js'
import { gateEnvironment } from '../gates/environment.js'
import { gatesHere } from '../gates/run.js'
import type { GateLog } from '../gates/types.js'
import { DEFAULT_RUBRIC_PATH } from '../rubric/defaults.js'
import { parseRubric } from '../rubric/parse.js'
import { localPlace, type LocalRubricSource } from '../local/place.js'
import { judgedBase, unreadableRubricLines } from '../local/preconditions.js'
import { LOCAL_MARKDOWN_BUDGET } from '../local/reports.js'
import { readLocalRubric } from './local-rubric.js'
import { checkerRubric } from '../rubric/sugar.js'
import { maskSecrets, secretValues } from '../util/secrets.js'
import { toJsonReport } from '../report/json.js'
import { renderMarkdown } from '../report/markdown.js'
import { renderTerminal } from '../report/terminal.js'
import { DEFAULT_CHECK_NAME, renderComment } from '../publish/memory.js'
import { USAGE_ERROR } from './args.js'
import { fileProblem, reportsProblem, writeReports, type CliIo } from './io.js'
import { optionModelLines, rubricModelLines } from '../publish/model-lines.js'
import { terminalCouncilProgress } from '../report/terminal-progress.js'
import type { Evaluation } from '../engine/evaluation.js'
import type { EvidenceScope } from '../evidence/types.js'
import type { HistoryEntry } from '../engine/history.js'
import { failed, ok, type Result } from '../util/result.js'

/** What one check here is of: the rubric (a file, or checker sugar), the judges, the base. */
export interface CheckRequest {
  readonly rubric?: string
  readonly checker?: string
  readonly models?: string
  readonly base?: string
  /**
   * Which rubric file grades: the base's (default, as the required check), the working tree's
   * (`--rubric-source head`), or a loop session's own (`session`, never from the command line).
   */
  readonly rubricSource?: LocalRubricSource
  /** The iterations before this one (`loop`), oldest first: the judges are told of them. */
  readonly history?: readonly HistoryEntry[]
}

export interface CheckOptions extends CheckRequest {
  /** Write the JSON report here. */
  readonly json?: string
  /** Write the Markdown report here; `-` prints it instead of the terminal rendering. */
  readonly markdown?: string
  /** Print the comment the action would post instead of the terminal rendering. */
  readonly dryRun?: boolean
}

/**
 * `rubric-council check`: one evaluation in the current directory; exits with the verdict's code,
 * or 2 (USAGE_ERROR) for what was found wrong before anything ran or a report left unwritten.
 */
export async function checkCommand(options: CheckOptions, io: CliIo): Promise<number> {
  // Everything that can be found wrong before a gate runs is, one line each, and nothing runs.
  const outputs = [
    ['JSON report', options.json],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown]
  ] as const
  const unwritable = reportsProblem(io, outputs)
  if (unwritable !== undefined) {
    io.stderr(`rubric-council: ${unwritable}`)
    return USAGE_ERROR
  }
  const checked = await checkHere(options, io)
  if (!checked.ok) {
    for (const line of checked.problem) io.stderr(line)
    return USAGE_ERROR
  }
  const evaluation = checked.value
  const markdown = renderMarkdown(evaluation, {
    budget: LOCAL_MARKDOWN_BUDGET,
    nextStep: 'terminal'
  })
  // The verdict first: a report that cannot be written must not hide it.
  if (options.markdown === '-') io.stdout(markdown)
  if (options.dryRun) io.stdout(renderComment(evaluation, DEFAULT_CHECK_NAME))
  else if (options.markdown !== '-') {
    // Without --markdown the full report still goes to a file, so reading it never means
    // running the gates and paying the judges again.
    const markdownFile = options.markdown ?? (await writeOwnReport(markdown, io))
    io.stdout(
      renderTerminal(evaluation, markdownFile === undefined ? {} : { markdownFile }).trimEnd()
    )
  }
  const writes = [
    [
      'JSON report',
      options.json,
      `${JSON.stringify(toJsonReport(evaluation, 'terminal'), null, 2)}\n`
    ],
    ['Markdown report', options.markdown === '-' ? undefined : options.markdown, markdown]
  ] as const
  return (await writeReports(io, writes)) ? evaluation.verdict.exitCode : USAGE_ERROR
}

/**
 * The evaluation `check` runs, in `io.cwd`: the rubric chosen as `chooseCheckRubric` says, its
 * gates, the judges of the diff from the merge base with `base`. Its failure is what was found
 * wrong before anything ran (an unreadable rubric, an unknown model, a base that does not resolve,
 * no change): the lines to say on stderr. Gate output and the judges' progress go to stderr as
 * they come.
 */
export async function checkHere(
  request: CheckRequest,
  io: CliIo
): Promise<Result<Evaluation, readonly string[]>> {
  const chosen = await chooseCheckRubric(request, io)
  return chosen.ok ? checkWith(request, chosen.value, io) : chosen
}

/**
 * The rubric a check grades by: checker sugar as given; a file as `readLocalRubric` chooses it
 * (the base's unless the request says otherwise), with its line said on stderr.
 */
export async function chooseCheckRubric(
  request: CheckRequest,
  io: CliIo
): Promise<Result<RubricChoice, readonly string[]>> {
  if (request.checker !== undefined) {
    return ok({ rubric: checkerRubric(request.checker), trusted: true })
  }
  const place = await localPlace(io.cwd, request.base, request.rubricSource ?? 'base')
  if (!place.ok) return failed([`rubric-council: ${place.problem}`])
  const chosen = await readLocalRubric(place.value, request.rubric ?? DEFAULT_RUBRIC_PATH, io)
  if (chosen.line !== undefined) io.stderr(chosen.line)
  return ok(chosen.choice)
}

/**
 * The evaluation of a chosen rubric, as `checkHere` describes it; `scope` for one rubric among
 * several (which changed files its judges see).
 */
export async function checkWith(
  request: CheckRequest,
  choice: RubricChoice,
  io: CliIo,
  scope?: EvidenceScope
): Promise<Result<Evaluation, readonly string[]>> {
  const { models, problems } = parseModelList(request.models ?? '')
  if (problems.length > 0) return failed([`rubric-council: --models: ${problems.join('; ')}`])
  const { rubric } = choice
  const unreadable = unreadableRubricLines(rubric, request.rubric !== undefined)
  if (unreadable.length > 0) return failed(unreadable)
  const parsed = rubric.ok ? parseRubric(rubric.value) : undefined
  const valid = parsed?.ok === true ? parsed.value : undefined
  // The rubric's models win over --models: the lines are about the judges that will be asked. A
  // retired one is said here and not asked; the report says it again.
  const now = io.now ?? Date.now
  const named = valid !== undefined && valid.council.models.length > 0
  const modelLines = named ? rubricModelLines(valid, now()) : optionModelLines(models, now())
  for (const line of modelLines.lines) io.stderr(line)
  const base = await judgedBase(io.cwd, request.base, valid)
  if (!base.ok) return base
  const evaluation = await evaluate(
    {
      rubric,
      trusted: choice.trusted,
      ...(choice.review && { review: choice.review }),
      ...(choice.calibration && { calibration: choice.calibration }),
      ...(request.history && { history: request.history }),
      ...(scope && { scope })
    },
    checkPorts(io, { models: request.models, base: base.value })
  )
  return ok(evaluation)
}

/**
 * What a local check runs on: gates in this directory, the diff from the merge base with `base`
 * (the default base when undefined), and the judges `models` names unless the rubric names some.
 */
export function checkPorts(
  io: CliIo,
  options: { readonly models: string | undefined; readonly base: string | undefined }
): EnginePorts {
  const secrets = secretValues(io.env)
  const mask = (text: string): string => maskSecrets(text, secrets)
  return {
    gates: gatesHere({
      cwd: io.cwd,
      env: gateEnvironment(io.env, providerVariables()),
      log: terminalGateLog(io),
      mask,
      ...(io.ticker && { waiting: { ticker: io.ticker, now: io.now ?? Date.now, say: io.stderr } })
    }),
    evidence: localEvidence({
      cwd: io.cwd,
      ...(options.base !== undefined && { base: options.base }),
      maxTokens: DEFAULT_MAX_EVIDENCE_TOKENS,
      exclude: []
    }),
    council: createCouncil({
      env: io.env,
      models: parseModelList(options.models ?? '').models,
      mask,
      progress: terminalCouncilProgress(io),
      now: io.now ?? Date.now,
      ...(io.ticker && { ticker: io.ticker }),
      // One checkout's runs (and a loop's iterations) share OpenAI's cache routing.
      thread: io.cwd
    })
  }
}

/**
 * The full report, written where `--markdown` was not asked to put it: a new folder of its own in
 * the system's temporary directory (`mkdtemp`: a name nobody could have prepared, readable only by
 * the user), never inside the repository, where it could be committed by accident. Its path, or
 * undefined after one line on stderr saying why it could not be written (the verdict stands).
 */
export async function writeOwnReport(markdown: string, io: CliIo): Promise<string | undefined> {
  try {
    const folder = await mkdtemp(join(tmpdir(), 'rubric-council-'))
    const file = join(folder, 'report.md')
    await writeFile(file, markdown, { mode: 0o600 })
    return file
  } catch (error) {
    const problem = fileProblem(error)
    if (problem === undefined) throw error
    io.stderr(
      `rubric-council: the full report was not written to ${tmpdir()}: ${problem}; pass --markdown FILE to write it elsewhere`
    )
    return undefined
  }
}

/** Gate output goes to stderr, so stdout carries only the report. */
export function terminalGateLog(io: Pick<CliIo, 'stderr'>): GateLog {
  let partial = ''
  return {
    startGroup: name => {
      io.stderr(`▸ ${name}`)
    },
    write: chunk => {
      const lines = (partial + chunk).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) io.stderr(`  ${line}`)
    },
    endGroup: () => {
      if (partial !== '') io.stderr(`  ${partial}`)
      partial = ''
    }
  }
}
