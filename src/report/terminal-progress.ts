import type { CouncilProgress } from '../council/council.js'
import type { JudgeRun } from '../council/types.js'
import { councilStartLine, judgeLine, extraVoteLine, settledLine } from './progress.js'

/** Where the progress is drawn: stderr, and whether it is a terminal (`CliIo` of the CLI). */
export interface ProgressTerminal {
  readonly stderr: (line: string) => void
  /** stderr is a terminal: the lines are redrawn in place. */
  readonly live?: boolean
}

/** How often the live status lines are redrawn, for their elapsed times. */
const REDRAW_MS = 1000

/**
 * The council's progress on stderr. In a terminal, one live status line per call, redrawn in
 * place as calls end (and each second, for the time elapsed); elsewhere (a log file, CI), one
 * line per call as it ends, and every 15 s whom the council still waits for.
 */
export function terminalCouncilProgress(
  io: ProgressTerminal,
  now: () => number = Date.now
): CouncilProgress {
  if (!io.live) {
    return {
      started: calls => {
        io.stderr(councilStartLine(calls))
      },
      finished: run => {
        io.stderr(`  ${judgeLine(run)}`)
      },
      extraVote: (call, criteria) => {
        io.stderr(extraVoteLine(call, criteria))
      },
      settled: (list, settledBy) => {
        io.stderr(settledLine(list, settledBy))
      },
      waiting: line => {
        io.stderr(`  ${line}`)
      }
    }
  }
  let calls: readonly { readonly judge: string; readonly sample: number }[] = []
  const done = new Map<string, JudgeRun>()
  const cancelled = new Set<string>()
  let started = 0
  let drawn = false
  let timer: NodeJS.Timeout | undefined
  const key = (judge: string, sample: number): string => `${judge}#${sample}`
  const draw = (): void => {
    const seconds = Math.round((now() - started) / 1000)
    const lines = calls.map(call => {
      const run = done.get(key(call.judge, call.sample))
      if (run) return judgeLine(run)
      return cancelled.has(key(call.judge, call.sample))
        ? `⏹ ${call.judge} #${call.sample}: cancelled, the verdict was settled`
        : `⋯ ${call.judge} #${call.sample}: asking (${seconds} s)`
    })
    // Back over the lines drawn last time, then each line cleared and written again.
    const up = drawn ? `\x1b[${lines.length}A` : ''
    lines.forEach((line, i) => {
      io.stderr(`${i === 0 ? up : ''}\r\x1b[2K  ${line}`)
    })
    drawn = true
  }
  /** A new block of live lines, below what is already on the screen. */
  const begin = (heading: string, list: typeof calls): void => {
    calls = list
    started = now()
    drawn = false
    io.stderr(heading)
    draw()
    clearInterval(timer)
    timer = setInterval(draw, REDRAW_MS)
    timer.unref()
  }
  return {
    started: list => {
      begin(councilStartLine(list), list)
    },
    extraVote: (call, criteria) => {
      begin(extraVoteLine(call, criteria), [call])
    },
    finished: run => {
      done.set(key(run.judge, run.sample), run)
      draw()
      if (calls.every(c => done.has(key(c.judge, c.sample)))) clearInterval(timer)
    },
    settled: list => {
      for (const call of list) cancelled.add(key(call.judge, call.sample))
      draw()
      clearInterval(timer)
    }
  }
}
