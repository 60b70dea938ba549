import { spawn } from 'node:child_process'
import { stat } from 'node:fs/promises'
import { resolve } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import type { Gate } from '../rubric/types.js'
import { formatExcerpt, HEAD_BYTES, TAIL_BYTES } from './excerpt.js'
import { mapBounded } from '../util/pool.js'
import { WAITING_EVERY_MS, type Ticker } from '../util/ticker.js'
import { killGroup, runStoppedBy, track } from './running.js'
import { notStartedDetail, stillRunningLine, stoppedDetail } from './sentences.js'
import type {
  GateLog,
  GateResult,
  GateSource,
  GateStatus,
  OutputExcerpt,
  StopSignal
} from './types.js'

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
  /**
   * The heartbeat: every `WAITING_EVERY_MS` while a gate runs, `say` gets a line naming it and
   * how long it has run (`now`, epoch ms). None without it.
   */
  readonly waiting?: GateWaiting
}

/** Where and by which clock the heartbeat of running gates is said. */
export interface GateWaiting {
  readonly ticker: Ticker
  readonly now: () => number
  readonly say: (line: string) => void
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

  const stopWaiting = heartbeat(gate, options.waiting)
  const outcome = await execute(gate, options, (chunk, stream) => {
    output.add(chunk)
    liveLog?.add(chunk, stream)
  }).finally(stopWaiting)
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

/** Says `stillRunningLine` every `WAITING_EVERY_MS` until the function it returns is called. */
function heartbeat(gate: Gate, waiting: GateWaiting | undefined): () => void {
  if (waiting === undefined) return () => undefined
  const started = waiting.now()
  return waiting.ticker.every(WAITING_EVERY_MS, () => {
    waiting.say(stillRunningLine(gate.command, Math.round((waiting.now() - started) / 1000)))
  })
}

interface Outcome {
  readonly status: GateStatus
  readonly exitCode: number | null
  readonly detail?: string
  readonly stopped?: StopSignal
}

/** Why a gate is being ended before it exits: its timeout, or a signal that stops the run. */
type Ending =
  | { readonly why: 'timeout' }
  | { readonly why: 'stop'; readonly signal: StopSignal; readonly ms: number }

type Stream = 'stdout' | 'stderr'

async function execute(
  gate: Gate,
  options: GateRunOptions,
  onData: (chunk: Buffer, stream: Stream) => void
): Promise<Outcome> {
  // Without this check a missing directory surfaces as `spawn bash ENOENT`, which blames bash.
  const cwdProblem = await checkDirectory(options.cwd)
  if (cwdProblem !== undefined) return { status: 'error', exitCode: null, detail: cwdProblem }
  const stoppedBefore = runStoppedBy()
  if (stoppedBefore !== undefined) {
    return {
      status: 'error',
      exitCode: null,
      detail: notStartedDetail(stoppedBefore),
      stopped: stoppedBefore
    }
  }

  return spawnGate(gate, options, onData)
}

/** Runs the gate's bash in a process group of its own, ended by its timeout or a stop. */
function spawnGate(
  gate: Gate,
  options: GateRunOptions,
  onData: (chunk: Buffer, stream: Stream) => void
): Promise<Outcome> {
  return new Promise<Outcome>(resolve => {
    // The command is an argument of -c, never spliced into a script: inputs cannot inject code.
    const shell = options.shellOptions ?? GATE_SHELL_OPTIONS
    const child = spawn('bash', [...shell, '-c', gate.command], {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a timeout or a stop can kill its children and grandchildren too.
      detached: true
    })
    const pid = child.pid
    const ender = groupEnder(pid, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS)
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined
    let drainTimer: NodeJS.Timeout | undefined
    const timeoutTimer = setTimeout(
      () => {
        ender.end({ why: 'timeout' })
      },
      Math.min(gate.timeout * 1000, MAX_TIMER_MS)
    )
    const groupGone = pid === undefined ? () => undefined : tracked(gate, pid, ender)

    const settle = (outcome: Outcome): void => {
      if (!ender.close()) return
      clearTimeout(timeoutTimer)
      clearTimeout(drainTimer)
      // Whatever the gate left running (servers, watchers, `cmd &`) must not outlive it.
      if (pid !== undefined) killGroup(pid, 'SIGKILL')
      groupGone()
      child.stdout.destroy()
      child.stderr.destroy()
      resolve(outcome)
    }
    const settleExited = (): void => {
      if (exited !== undefined) settle(exitOutcome(exited.code, exited.signal, ender.why(), gate))
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

/**
 * How a gate's group is ended before bash exits, by its timeout or a stop, the one path for both:
 * SIGTERM, then SIGKILL after the grace period. The first reason is the one kept; nothing is
 * signalled once `close` (the gate settled, its group killed) returned true.
 */
function groupEnder(
  pid: number | undefined,
  graceMs: number
): { end: (why: Ending) => void; why: () => Ending | undefined; close: () => boolean } {
  let ending: Ending | undefined
  let closed = false
  let killTimer: NodeJS.Timeout | undefined
  return {
    end: why => {
      if (pid === undefined || ending !== undefined || closed) return
      ending = why
      killGroup(pid, 'SIGTERM')
      killTimer = setTimeout(() => {
        killGroup(pid, 'SIGKILL')
      }, graceMs)
    },
    why: () => ending,
    close: () => {
      if (closed) return false
      closed = true
      clearTimeout(killTimer)
      return true
    }
  }
}

/**
 * Registers the running gate for a stop of the run (src/gates/running.ts); the function returned
 * is to be called once its group is gone.
 */
function tracked(gate: Gate, pid: number, ender: ReturnType<typeof groupEnder>): () => void {
  const startedAt = performance.now()
  let gone: () => void = () => undefined
  track({
    command: gate.command,
    startedAt,
    stop: signal => {
      ender.end({ why: 'stop', signal, ms: performance.now() - startedAt })
    },
    kill: () => {
      killGroup(pid, 'SIGKILL')
    },
    ended: new Promise<void>(done => {
      gone = done
    })
  })
  return gone
}

function exitOutcome(
  code: number | null,
  signal: NodeJS.Signals | null,
  ending: Ending | undefined,
  gate: Gate
): Outcome {
  // Whatever a stopped or timed-out gate exits with (a `trap 'exit 0' TERM` included), it did not pass.
  if (ending?.why === 'stop') {
    return {
      status: 'error',
      exitCode: null,
      detail: stoppedDetail(ending.signal, ending.ms),
      stopped: ending.signal
    }
  }
  if (ending?.why === 'timeout') {
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
