import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import {
  chooseLayout,
  initFiles,
  LAYOUT_WORKFLOWS,
  otherLayoutWorkflows,
  SESSIONS_ROOT,
  withSessionsIgnored,
  type InitOptions
} from '../init/layout.js'
import { choosePin, pinSource, type ActionPin, type PinFacts } from '../init/pin.js'
import { readPinFacts } from '../init/pin-facts.js'
import { EXAMPLE_RUBRIC_FILE, exampleRubric } from '../init/rubrics.js'
import {
  calibrateAdvice,
  layoutAdvice,
  pinSentence,
  rubricsAdvice,
  targetAdvice
} from '../init/sentences.js'
import { CALIBRATE_WORKFLOW_FILE, calibrateWorkflow, RUBRIC_FILE } from '../init/workflows.js'
import { USAGE_ERROR } from './args.js'
import { CLI_NAME } from './invocation.js'
import type { CliIo } from './io.js'

/**
 * `rubric-council init`: a starter rubric and the split-layout workflow, or with `--forks` the
 * two workflows of the fork layout, and the bot's workflow; with `--rubrics` the example rubric
 * among several too. Keeps a rubric that exists; refuses to overwrite a workflow without
 * `--force`, and writes nothing unless it can write them all.
 */
export async function initCommand(
  options: InitOptions,
  io: CliIo,
  pinFacts: () => PinFacts = readPinFacts
): Promise<number> {
  const layout = chooseLayout(options, io.cwd)
  if (!layout.ok) {
    io.stderr(`rubric-council: ${layout.problem}`)
    return USAGE_ERROR
  }
  if (layout.value === 'rubrics') return writeExampleRubric(io)
  // The workflows pin the action to this CLI's own commit: no tag may exist yet.
  const facts = pinFacts()
  const pin = choosePin(facts)
  if (!pin.ok) {
    io.stderr(`rubric-council: ${pin.problem}`)
    return 1
  }
  const pinned = pinSentence(pinSource(facts, pin.value), pin.value.commit)
  if (layout.value === 'calibrate')
    return writeCalibrateWorkflow(io, pin.value, options.force, pinned)
  return writeLayout(options, io, pin.value, pinned)
}

/**
 * A review layout's files, the sessions ignored, and what to do next; `pinned` says what the
 * commit the workflows pin is.
 */
async function writeLayout(
  options: InitOptions,
  io: CliIo,
  pin: ActionPin,
  pinned: string
): Promise<number> {
  const { files, setup } = initFiles(io.cwd, options, pin)
  const existing = files.filter(f => existsSync(join(io.cwd, f.path)))
  if (existing.length > 0 && !options.force) {
    for (const f of existing)
      io.stderr(`rubric-council: ${f.path} exists; not overwriting it (use --force)`)
    return 1
  }
  const rubrics = options.rubrics === true
  const wrote = (path: string): boolean => files.some(f => f.path === path)
  const kept = [RUBRIC_FILE, ...(rubrics ? [EXAMPLE_RUBRIC_FILE] : [])].filter(p => !wrote(p))
  for (const path of kept) io.stdout(`kept ${path} as it is (init never overwrites a rubric)`)
  for (const f of files) {
    const full = join(io.cwd, f.path)
    await mkdir(dirname(full), { recursive: true })
    await writeFile(full, f.text)
    io.stdout(`wrote ${f.path}`)
  }
  const gitignore = join(io.cwd, '.gitignore')
  const ignored = withSessionsIgnored(
    existsSync(gitignore) ? await readFile(gitignore, 'utf8') : ''
  )
  if (ignored !== undefined) {
    await writeFile(gitignore, ignored)
    io.stdout(`added ${SESSIONS_ROOT} to .gitignore (the sessions of rubric-council loop)`)
  }
  for (const other of otherLayoutWorkflows(files, path => existsSync(join(io.cwd, path)))) {
    io.stdout(
      `${other} is not part of this layout and still runs: delete it (git rm ${other}) if init wrote it`
    )
  }
  io.stdout(pinned)
  const command = io.invokedAs ?? CLI_NAME
  const advice =
    options.target === true
      ? targetAdvice(wrote(RUBRIC_FILE), command)
      : layoutAdvice({ forks: options.forks, placeholder: setup.placeholder, rubrics, command })
  io.stdout([...advice, ...(rubrics ? rubricsAdvice(command, true) : [])].join('\n'))
  return 0
}

/** `init --calibrate`: the calibration workflow alone, never over one that exists without --force. */
async function writeCalibrateWorkflow(
  io: CliIo,
  pin: ActionPin,
  force: boolean,
  pinned: string
): Promise<number> {
  const full = join(io.cwd, CALIBRATE_WORKFLOW_FILE)
  if (existsSync(full) && !force) {
    io.stderr(`rubric-council: ${CALIBRATE_WORKFLOW_FILE} exists; not overwriting it (use --force)`)
    return 1
  }
  await mkdir(dirname(full), { recursive: true })
  await writeFile(full, calibrateWorkflow(pin))
  io.stdout(`wrote ${CALIBRATE_WORKFLOW_FILE}`)
  io.stdout(pinned)
  io.stdout(calibrateAdvice(io.invokedAs ?? CLI_NAME).join('\n'))
  return 0
}

/**
 * `init --rubrics` where init wrote the workflows before: the example rubric among several (an
 * existing one is kept), beside the workflows, kept as they are: their review reads it.
 */
async function writeExampleRubric(io: CliIo): Promise<number> {
  const full = join(io.cwd, EXAMPLE_RUBRIC_FILE)
  if (existsSync(full)) {
    io.stdout(`kept ${EXAMPLE_RUBRIC_FILE} as it is (init never overwrites a rubric)`)
  } else {
    await mkdir(dirname(full), { recursive: true })
    await writeFile(full, exampleRubric())
    io.stdout(`wrote ${EXAMPLE_RUBRIC_FILE}`)
  }
  for (const kept of LAYOUT_WORKFLOWS.filter(path => existsSync(join(io.cwd, path)))) {
    io.stdout(
      `kept ${kept} as it is: it runs the rubrics in .github/rubrics/ too (--force writes the layout anew)`
    )
  }
  io.stdout(rubricsAdvice(io.invokedAs ?? CLI_NAME, false).join('\n'))
  return 0
}
