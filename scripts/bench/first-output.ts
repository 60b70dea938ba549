/**
 * Time to first output: `npm run bench -- first-output`. From spawn to the first byte a process
 * writes (stdout or stderr), for the action (`node dist/index.js` with a runner's environment and a
 * github-token input, whose `::add-mask::` is its first line, written before its modules load;
 * and, apart, its first line the job log shows, once they have) and the CLI (`bin/rubric-council.js --version`), beside a bare `node -e ""` (spawn to
 * exit: it writes nothing) and a checkout-like entry: a one-line script that prints one line, as
 * actions/checkout's first step does (its dist is not on this machine; the figure is Node's start
 * plus one small file, a lower bound for any action). Each run is a new process; the runs of the
 * subjects are interleaved, so that a change in the machine's load falls on all of them alike.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { prepareRunner } from '../../__tests__/helpers/action-run.js'
import { median, ms, table } from './stats.js'

/** The target: the action's first byte within this many times a bare Node start, in one run. */
export const FIRST_OUTPUT_RATIO = 3

interface Subject {
  readonly name: string
  readonly argv: readonly string[]
  readonly env: Readonly<Record<string, string>>
  /** Spawn to exit instead of to the first byte: for a process that writes nothing. */
  readonly untilExit?: boolean
  /**
   * To the first line the job log shows instead: a line other than the runner's `::add-mask::`,
   * which the runner takes and does not show.
   */
  readonly shown?: boolean
}

/** Milliseconds from spawn to the first byte (or to exit, for `untilExit`). */
function firstByte(subject: Subject): Promise<number> {
  const [command = '', ...args] = subject.argv
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(command, args, { env: subject.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let first: number | undefined
    let text = ''
    const seen = (data: Buffer): void => {
      if (first !== undefined) return
      text += data.toString()
      const lines = text.split('\n').slice(0, -1)
      if (!subject.shown || lines.some(line => !line.startsWith('::add-mask::')))
        first = performance.now() - started
    }
    child.stdout.on('data', seen)
    child.stderr.on('data', seen)
    child.on('error', reject)
    child.on('close', () => {
      const exited = performance.now() - started
      if (subject.untilExit === true) resolve(exited)
      else if (first === undefined) reject(new Error(`${subject.name} wrote nothing`))
      else resolve(first)
    })
  })
}

export interface FirstOutputRow {
  readonly name: string
  readonly medianMs: number
  readonly minMs: number
  readonly maxMs: number
}

/** `runs` interleaved rounds of the four subjects, with `action` the bundle's entry. */
export async function firstOutputFigure(
  root: string,
  action: string,
  runs: number
): Promise<FirstOutputRow[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'rc-bench-first-'))
  const checkoutLike = join(scratch, 'index.js')
  writeFileSync(checkoutLike, "console.log('Syncing repository')\n")
  const runner = prepareRunner({
    workspace: scratch,
    inputs: { 'github-token': 'ghs_bench_first_output_0001', 'fail-on': 'x' }
  })
  const node = process.execPath
  const path = { PATH: process.env.PATH ?? '' }
  const subjects: Subject[] = [
    {
      name: 'bare `node -e ""` (spawn to exit)',
      argv: [node, '-e', ''],
      env: path,
      untilExit: true
    },
    { name: 'checkout-like: a one-line script', argv: [node, checkoutLike], env: path },
    { name: 'the action: node dist/index.js', argv: [node, action], env: runner.env },
    {
      name: 'the action: its first line the log shows',
      argv: [node, action],
      env: runner.env,
      shown: true
    },
    {
      name: 'the CLI: bin/rubric-council.js --version',
      argv: [node, join(root, 'bin/rubric-council.js'), '--version'],
      env: path
    }
  ]
  const times = subjects.map((): number[] => [])
  try {
    for (const subject of subjects) await firstByte(subject) // warm-up, not counted
    for (let round = 0; round < runs; round++)
      for (const [i, subject] of subjects.entries()) times[i]?.push(await firstByte(subject))
  } finally {
    rmSync(scratch, { recursive: true, force: true })
    rmSync(runner.runnerTemp, { recursive: true, force: true })
  }
  return subjects.map((subject, i) => {
    const values = times[i] ?? []
    return {
      name: subject.name,
      medianMs: median(values),
      minMs: Math.min(...values),
      maxMs: Math.max(...values)
    }
  })
}

/** The figure as a table, each row with its ratio to the bare start, and the target's line. */
export function firstOutputTable(rows: readonly FirstOutputRow[]): string {
  const bare = rows[0]?.medianMs ?? NaN
  const action = rows.find(r => r.name.startsWith('the action'))?.medianMs ?? NaN
  const ratio = action / bare
  return [
    table([
      ['first output (median of the runs)', 'median', 'min–max', '× bare node'],
      ...rows.map(r => [
        r.name,
        ms(r.medianMs),
        `${ms(r.minMs)}–${ms(r.maxMs)}`,
        `${(r.medianMs / bare).toFixed(2)}×`
      ])
    ]),
    '',
    `the action's first output: ${ratio.toFixed(2)}× a bare node start (target ≤ ${FIRST_OUTPUT_RATIO}×) ${ratio <= FIRST_OUTPUT_RATIO ? '✓' : '✗'}`
  ].join('\n')
}
