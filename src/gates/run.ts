import { spawn } from 'node:child_process'
import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { Gate } from '../rubric/types.js'
import { formatExcerpt, HEAD_BYTES, TAIL_BYTES } from './excerpt.js'
import { mapBounded } from '../util/pool.js'
import type { GateLog, GateResult, GateSource, GateStatus, OutputExcerpt } from './types.js'

/** How long the pipes may keep delivering after bash exits, before the rest of the group goes. */
const DRAIN_MS = 200
const DEFAULT_KILL_GRACE_MS = 5000
/** setTimeout overflows (and fires at once) above this many milliseconds. */
const MAX_TIMER_MS = 2 ** 31 - 1

export interface GateRunOptions {
  /** Directory the gates run in. */
  readonly cwd: string
  /** Already scrubbed by the caller (see `gateEnvironment`). */
  readonly env: Readonly<Record<string, string>>
  readonly log: GateLog
  /** Applied to everything logged and to the excerpt. */
  readonly mask: (text: string) => string
  /** 1 runs gates one after another; n runs at most n at once. */
  readonly parallel: number
  /** SIGTERM → SIGKILL delay on timeout. */
  readonly killGraceMs?: number
  /**
   * bash's options before `-c`: a gate fails at its first failing command (`-e`) or pipe stage
   * (`-o pipefail`); the loop's doer is the user's command line, run as `bash -c` runs it.
   */
  readonly shellOptions?: readonly string[]
}

const GATE_SHELL_OPTIONS = ['-eo', 'pipefail'] as const

/** Runs the gates, at most `options.parallel` at once; results keep the gates' order. */
export function runGates(gates: readonly Gate[], options: GateRunOptions): Promise<GateResult[]> {
  return mapBounded(gates, options.parallel, gate => runGate(gate, options))
}

/**
 * The gates run here: in `cwd` joined with the rubric's `gates.working_directory`, as many at once
 * as the rubric allows, with `env` (already without credentials, see `gateEnvironment`).
 */
export function gatesHere(
  options: Omit<GateRunOptions, 'parallel'> & { readonly cwd: string }
): GateSource {
  return {
    results: rubric =>
      runGates(rubric.gates, {
        ...options,
        cwd: resolve(options.cwd, rubric.gateOptions.workingDirectory),
        parallel: rubric.gateOptions.parallel
      })
  }
}

/** Runs one gate through `bash -eo pipefail -c`, in its own process group, with its timeout. */
export async function runGate(gate: Gate, options: GateRunOptions): Promise<GateResult> {
  const started = performance.now()
  const output = new OutputCollector()
  // Run one at a time, the output streams live; run side by side, it would interleave unreadably,
  // so each gate's excerpt is written as one group when it finishes.
  const live = options.parallel <= 1
  const liveLog = live ? new LiveLog(options.log, options.mask) : undefined
  if (live) options.log.startGroup(gate.command)

  const outcome = await execute(gate, options, (chunk, stream) => {
    output.add(chunk)
    liveLog?.add(chunk, stream)
  })
  const durationMs = performance.now() - started
  const result: GateResult = {
    command: gate.command,
    ...outcome,
    durationMs,
    output: output.excerpt(options.mask)
  }

  if (liveLog) {
    liveLog.finish()
  } else {
    options.log.startGroup(gate.command)
    const text = formatExcerpt(result.output)
    if (text !== '') options.log.write(text.endsWith('\n') ? text : `${text}\n`)
  }
  options.log.write(`${summaryLine(result, gate)}\n`)
  options.log.endGroup()
  return result
}

interface Outcome {
  readonly status: GateStatus
  readonly exitCode: number | null
  readonly detail?: string
}

type Stream = 'stdout' | 'stderr'

async function execute(
  gate: Gate,
  options: GateRunOptions,
  onData: (chunk: Buffer, stream: Stream) => void
): Promise<Outcome> {
  // Without this check a missing directory surfaces as `spawn bash ENOENT`, which blames bash.
  const cwdProblem = await checkDirectory(options.cwd)
  if (cwdProblem !== undefined) return { status: 'error', exitCode: null, detail: cwdProblem }

  return new Promise<Outcome>(resolve => {
    // The command is an argument of -c, never spliced into a script: inputs cannot inject code.
    const shell = options.shellOptions ?? GATE_SHELL_OPTIONS
    const child = spawn('bash', [...shell, '-c', gate.command], {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a timeout can kill the gate's children and grandchildren too.
      detached: true
    })
    const pid = child.pid
    let timedOut = false
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined
    let settled = false
    let killTimer: NodeJS.Timeout | undefined
    let drainTimer: NodeJS.Timeout | undefined

    const timeoutTimer = setTimeout(
      () => {
        if (pid === undefined) return
        timedOut = true
        killGroup(pid, 'SIGTERM')
        killTimer = setTimeout(() => {
          killGroup(pid, 'SIGKILL')
        }, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS)
      },
      Math.min(gate.timeout * 1000, MAX_TIMER_MS)
    )

    const settle = (outcome: Outcome): void => {
      if (settled) return
      settled = true
      clearTimeout(timeoutTimer)
      clearTimeout(killTimer)
      clearTimeout(drainTimer)
      // Whatever the gate left running (servers, watchers, `cmd &`) must not outlive it.
      if (pid !== undefined) killGroup(pid, 'SIGKILL')
      child.stdout.destroy()
      child.stderr.destroy()
      resolve(outcome)
    }
    const settleExited = (): void => {
      if (exited !== undefined) settle(exitOutcome(exited.code, exited.signal, timedOut, gate))
    }

    child.stdout.on('data', (chunk: Buffer) => {
      onData(chunk, 'stdout')
    })
    child.stderr.on('data', (chunk: Buffer) => {
      onData(chunk, 'stderr')
    })
    child.on('error', error => {
      settle({ status: 'error', exitCode: null, detail: `could not start bash: ${error.message}` })
    })
    child.on('exit', (code, signal) => {
      exited = { code, signal }
      clearTimeout(timeoutTimer)
      // A background child (`sleep 60 & echo done`) may hold the pipes open forever: give them a
      // moment to deliver what bash wrote, then stop waiting.
      drainTimer = setTimeout(settleExited, DRAIN_MS)
    })
    // All pipes closed after the exit: nothing more to wait for.
    child.on('close', settleExited)
  })
}

function exitOutcome(
  code: number | null,
  signal: NodeJS.Signals | null,
  timedOut: boolean,
  gate: Gate
): Outcome {
  if (timedOut) {
    return {
      status: 'timeout',
      exitCode: null,
      detail: `timed out after ${gate.timeout} s; the process group was killed`
    }
  }
  if (code === null) {
    return { status: 'fail', exitCode: null, detail: `killed by signal ${signal ?? 'unknown'}` }
  }
  return { status: code === 0 ? 'pass' : 'fail', exitCode: code }
}

async function checkDirectory(path: string): Promise<string | undefined> {
  try {
    const info = await stat(path)
    return info.isDirectory() ? undefined : `working directory ${path} is not a directory`
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT'
      ? `working directory ${path} does not exist`
      : `working directory ${path} is not accessible (${code ?? String(error)})`
  }
}

/**
 * Signals the whole process group. A group already gone (ESRCH) is what we wanted; EPERM is what
 * macOS answers for a group of zombies. Neither may crash the run from inside a timer.
 */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ESRCH' && code !== 'EPERM') throw error
  }
}

function summaryLine(result: GateResult, gate: Gate): string {
  const seconds = `${(result.durationMs / 1000).toFixed(1)} s`
  switch (result.status) {
    case 'pass':
      return `→ pass in ${seconds}`
    case 'fail':
      return result.exitCode === null
        ? `→ fail (${result.detail ?? 'killed'}) in ${seconds}`
        : `→ fail (exit ${result.exitCode}) in ${seconds}`
    case 'timeout':
      return `→ timeout after ${gate.timeout} s`
    case 'error':
      return `→ error: ${result.detail ?? 'the gate could not run'}`
  }
}

/**
 * Bounded memory whatever a gate prints: the first HEAD_BYTES and a rolling last TAIL_BYTES,
 * stdout and stderr merged in arrival order.
 */
class OutputCollector {
  private head = Buffer.alloc(0)
  private tail = Buffer.alloc(0)
  private total = 0

  add(chunk: Buffer): void {
    this.total += chunk.length
    let rest = chunk
    if (this.head.length < HEAD_BYTES) {
      const taken = rest.subarray(0, HEAD_BYTES - this.head.length)
      this.head = Buffer.concat([this.head, taken])
      rest = rest.subarray(taken.length)
    }
    if (rest.length === 0) return
    const joined = Buffer.concat([this.tail, rest.subarray(-TAIL_BYTES)])
    // A copy, so the tail does not keep a large chunk's memory alive through a view.
    this.tail =
      joined.length > TAIL_BYTES ? Buffer.from(joined.subarray(joined.length - TAIL_BYTES)) : joined
  }

  /** Decoded (a multibyte character cut at an edge becomes U+FFFD), ANSI-free, masked. */
  excerpt(mask: (text: string) => string): OutputExcerpt {
    const clean = (bytes: Buffer): string => mask(stripAnsi(bytes.toString('utf8')))
    return {
      head: clean(this.head),
      tail: clean(this.tail),
      elidedBytes: this.total - this.head.length - this.tail.length,
      totalBytes: this.total
    }
  }
}

/** Live output for sequential runs: each chunk masked and written as it arrives. */
/**
 * Live output per gate shown in the log at most: beyond it, a slow reader of the log would make
 * the action hold everything a gate prints. The excerpt keeps the end either way.
 */
const LIVE_LOG_BYTES = 1024 * 1024

class LiveLog {
  // One decoder per stream, so a multibyte character split across chunks is not garbled.
  private readonly decoders: Record<Stream, StringDecoder> = {
    stdout: new StringDecoder('utf8'),
    stderr: new StringDecoder('utf8')
  }
  private endsWithNewline = true
  private shown = 0
  private readonly log: GateLog
  private readonly mask: (text: string) => string

  constructor(log: GateLog, mask: (text: string) => string) {
    this.log = log
    this.mask = mask
  }

  add(chunk: Buffer, stream: Stream): void {
    // Known limitation: a secret split across two chunks is not masked here (the excerpt, decoded
    // whole, still masks it). Buffering to close that gap would delay every line of live output.
    if (this.shown >= LIVE_LOG_BYTES) return
    this.shown += chunk.length
    this.emit(this.decoders[stream].write(chunk))
    if (this.shown >= LIVE_LOG_BYTES) {
      this.emit(
        `${this.endsWithNewline ? '' : '\n'}… more output is not shown live; the report keeps its end …\n`
      )
    }
  }

  /** Flushes partial characters and ends on a new line, so the summary line stands alone. */
  finish(): void {
    this.emit(this.decoders.stdout.end())
    this.emit(this.decoders.stderr.end())
    if (!this.endsWithNewline) this.emit('\n')
  }

  private emit(text: string): void {
    if (text === '') return
    this.log.write(this.mask(text))
    this.endsWithNewline = text.endsWith('\n')
  }
}

// CSI sequences (colours, cursor moves) and OSC sequences (titles, hyperlinks), ended by BEL or ST.
/* eslint-disable no-control-regex -- escape sequences are control characters by definition */
const CSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g
const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g
/* eslint-enable no-control-regex */

function stripAnsi(text: string): string {
  return text.replace(OSC, '').replace(CSI, '')
}
