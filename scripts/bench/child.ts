import { execFileSync, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { prepareRunner, readOutputs, type RunOptions } from '../../__tests__/helpers/action-run.js'
import type { JsonReport } from '../../src/report/json.js'
import type { Trace } from './trace.js'

/**
 * Runs processes for the benchmark and measures them: wall time on this process's monotonic clock
 * (spawn to close), peak RSS from `/usr/bin/time -v` when it is there (the kernel's ru_maxrss of the
 * child), else from polling `/proc/<pid>/status` VmHWM (the kernel's own high-water mark).
 */

export type { JsonReport }

export const ROOT = join(import.meta.dirname, '..', '..')
let action = join(ROOT, 'dist/index.js')

export interface Bundle {
  /** The copy that is run. */
  readonly path: string
  /** First 12 hex digits of dist/index.js's sha256. */
  readonly sha256: string
  /** The commit checked out, and whether src/ or dist/ differ from it. */
  readonly commit: string
  readonly dirty: string
  dispose(): void
}

/**
 * Copies dist/ to a temporary folder and runs the action from there from now on, so that a
 * rebuild of dist/ while the benchmark runs cannot change (or break) what it measures.
 */
export async function snapshotBundle(): Promise<Bundle> {
  await settledBundle()
  const dir = mkdtempSync(join(tmpdir(), 'rc-bench-dist-'))
  cpSync(join(ROOT, 'dist'), dir, { recursive: true })
  action = join(dir, 'index.js')
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()
  const changed = git('status', '--porcelain', '--', 'src', 'dist')
  return {
    path: action,
    sha256: createHash('sha256').update(readFileSync(action)).digest('hex').slice(0, 12),
    commit: git('rev-parse', '--short=7', 'HEAD'),
    dirty: changed === '' ? '' : 'src/ or dist/ differ from the commit',
    dispose: () => {
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/**
 * Waits (up to two minutes) while dist/ is missing or still changing: `npm run bundle` removes it
 * and writes it anew, and may be running in another shell.
 */
async function settledBundle(): Promise<void> {
  const stamp = (): string => {
    const files = ['dist/index.js', 'dist/cli/index.js'].map(f => join(ROOT, f))
    return files.every(f => existsSync(f))
      ? files.map(f => `${statSync(f).size}@${statSync(f).mtimeMs}`).join(',')
      : ''
  }
  const until = Date.now() + 120_000
  let previous = stamp()
  for (;;) {
    await new Promise(resolve => setTimeout(resolve, 1000))
    const now = stamp()
    if (now !== '' && now === previous) return
    if (Date.now() > until)
      throw new Error('dist/ is missing or keeps changing: run `npm run bundle`')
    process.stderr.write('bench: waiting for dist/ (being rebuilt?)\n')
    previous = now
  }
}

/** The bundle being measured: dist/index.js, or its snapshot. */
export function actionPath(): string {
  return action
}
const TRACE_MODULE = pathToFileURL(join(import.meta.dirname, 'trace.ts')).href
const GNU_TIME = '/usr/bin/time'

export const rssSource = existsSync(GNU_TIME)
  ? '/usr/bin/time -v (max RSS)'
  : '/proc/<pid>/status VmHWM (polled)'

export interface Measured {
  readonly code: number
  readonly wallMs: number
  /** Peak resident set size, KiB. */
  readonly maxRssKb: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs `argv` (argv[0] an absolute path) with exactly `env`, and measures it. */
async function measure(
  argv: readonly string[],
  env: Readonly<Record<string, string>>
): Promise<Measured> {
  const [command = '', ...args] = argv
  const scratch = mkdtempSync(join(tmpdir(), 'rc-bench-time-'))
  const timeFile = join(scratch, 'time.txt')
  const useTime = existsSync(GNU_TIME)
  const started = performance.now()
  const child = useTime
    ? spawn(GNU_TIME, ['-v', '-o', timeFile, command, ...args], {
        env,
        stdio: ['ignore', 'pipe', 'pipe']
      })
    : spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk))
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
  let polledKb = 0
  const poll = useTime
    ? undefined
    : setInterval(() => {
        try {
          const status = readFileSync(`/proc/${String(child.pid)}/status`, 'utf8')
          polledKb = Math.max(polledKb, Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1] ?? 0))
        } catch {
          // Gone already: the last reading stands.
        }
      }, 2)
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', status => {
      resolve(status ?? 128)
    })
  })
  const wallMs = performance.now() - started
  if (poll) clearInterval(poll)
  let maxRssKb = polledKb
  if (useTime) {
    const report = readFileSync(timeFile, 'utf8')
    maxRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(report)?.[1] ?? NaN)
  }
  rmSync(scratch, { recursive: true, force: true })
  return {
    code,
    wallMs,
    maxRssKb,
    stdout: Buffer.concat(stdout).toString('utf8'),
    stderr: Buffer.concat(stderr).toString('utf8')
  }
}

export interface ActionMeasured extends Measured {
  readonly outputs: Record<string, string>
  /** The JSON report (`report` output), parsed; undefined when the run wrote none. */
  readonly report: JsonReport | undefined
  /** With `trace: true`: what `scripts/bench/trace.ts` recorded inside the process. */
  readonly trace: Trace | undefined
}

/**
 * `node dist/index.js` exactly as `runAction` (__tests__/helpers/action-run.ts) runs it, with the
 * same environment, but measured, and optionally traced.
 */
export async function measureAction(
  options: RunOptions & {
    readonly trace?: boolean
    /** Extra options for node, before the script (e.g. `--cpu-prof`). */
    readonly nodeArgs?: readonly string[]
    /** The bundle to run; the snapshot (`actionPath()`) when not given. */
    readonly bundle?: string
  }
): Promise<ActionMeasured> {
  const prepared = prepareRunner(options)
  const { runnerTemp, outputFile } = prepared
  const traceFile = join(runnerTemp, 'trace.json')
  const env = { ...prepared.env, ...(options.trace === true && { BENCH_TRACE_FILE: traceFile }) }
  const argv = [
    process.execPath,
    ...(options.trace === true ? ['--import', TRACE_MODULE] : []),
    ...(options.nodeArgs ?? []),
    options.bundle ?? action
  ]
  try {
    const measured = await measure(argv, env)
    const outputs = readOutputs(readFileSync(outputFile, 'utf8'))
    const reportPath = outputs.report
    const report =
      reportPath !== undefined && reportPath !== '' && existsSync(reportPath)
        ? (JSON.parse(readFileSync(reportPath, 'utf8')) as JsonReport)
        : undefined
    const trace = existsSync(traceFile)
      ? (JSON.parse(readFileSync(traceFile, 'utf8')) as Trace)
      : undefined
    return { ...measured, outputs, report, trace }
  } finally {
    rmSync(runnerTemp, { recursive: true, force: true })
  }
}

/** `measureAction`, failing loudly when the run did not end in a verdict (a broken bundle). */
export async function runChecked(
  name: string,
  run: Parameters<typeof measureAction>[0]
): Promise<ActionMeasured> {
  const result = await measureAction(run)
  if (result.outputs.verdict === undefined || result.outputs.reasons === 'internal_error') {
    throw new Error(
      `${name}: the run did not end in a verdict (exit ${result.code}):\n${result.stdout}\n${result.stderr}`
    )
  }
  return result
}

/** A bare `node -e 0`, measured the same way. */
export function measureBareNode(): Promise<Measured> {
  return measure([process.execPath, '-e', '0'], { PATH: process.env.PATH ?? '' })
}
