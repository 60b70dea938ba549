/**
 * Preloaded into the action's process by the benchmark (`node --import <this file> dist/index.js`)
 * to see where a run's time goes. It records, on the process's own clock (`performance.now()`, ms
 * since the process started):
 *
 * - every HTTP request, when it is created and when its response headers arrive (undici's
 *   diagnostics channels, which both Node's `fetch` and the bundled undici publish to);
 * - every child process (git, gate shells), when it is spawned and when it closes;
 * - the first write to stdout (the action's first log line: `::add-mask::` for a key it masks);
 * - the exit, with the process's peak RSS.
 *
 * It writes them as JSON to `BENCH_TRACE_FILE` when the process exits. Node strips the types when
 * it loads this file, so it must stay erasable TypeScript with no imports of project files.
 */
import type * as ChildProcesses from 'node:child_process'
import { subscribe } from 'node:diagnostics_channel'
import { writeFileSync } from 'node:fs'
import { createRequire, syncBuiltinESMExports } from 'node:module'

export type TraceKind =
  'preload' | 'stdout' | 'http-start' | 'http-end' | 'spawn-start' | 'spawn-end' | 'exit'

export interface TraceEvent {
  /** Milliseconds since the process started. */
  readonly at: number
  readonly kind: TraceKind
  /** Pairs a start with its end. */
  readonly id: number
  /** `METHOD origin/path` for HTTP, the command line for a child process. */
  readonly detail: string
}

export interface Trace {
  readonly events: readonly TraceEvent[]
  /** `process.resourceUsage().maxRSS`, in KiB. */
  readonly maxRssKb: number
}

const file = process.env.BENCH_TRACE_FILE
if (file !== undefined && file !== '') install(file)

function install(path: string): void {
  const events: TraceEvent[] = []
  let nextId = 1
  const record = (kind: TraceKind, detail: string, id = 0): void => {
    events.push({ at: performance.now(), kind, id, detail })
  }
  record('preload', '')

  const ids = new WeakMap<object, number>()
  const describe = (message: unknown): { key: object; detail: string } | undefined => {
    if (typeof message !== 'object' || message === null || !('request' in message)) return
    const request = message.request as { method?: string; origin?: unknown; path?: string }
    const origin =
      typeof request.origin === 'string'
        ? request.origin
        : request.origin instanceof URL
          ? request.origin.origin
          : ''
    return { key: request, detail: `${request.method ?? ''} ${origin}${request.path ?? ''}` }
  }
  subscribe('undici:request:create', message => {
    const request = describe(message)
    if (request === undefined) return
    const id = nextId++
    ids.set(request.key, id)
    record('http-start', request.detail, id)
  })
  subscribe('undici:request:headers', message => {
    const request = describe(message)
    if (request === undefined) return
    const status = (message as { response?: { statusCode?: number } }).response?.statusCode
    record('http-end', `${request.detail} ${String(status ?? '')}`, ids.get(request.key) ?? 0)
  })

  // The bundle reads `spawn` off the CommonJS module object when it calls it, so patching the
  // object (and syncing the ESM view) sees every git and gate process.
  const childProcesses = createRequire(import.meta.url)(
    'node:child_process'
  ) as typeof ChildProcesses
  const spawn = childProcesses.spawn
  const traced = (...args: unknown[]): ChildProcesses.ChildProcess => {
    const child = Reflect.apply(spawn, childProcesses, args) as ChildProcesses.ChildProcess
    const id = nextId++
    const argv = Array.isArray(args[1]) ? (args[1] as unknown[]).map(String) : []
    const detail = [String(args[0]), ...argv].join(' ').slice(0, 200)
    record('spawn-start', detail, id)
    child.on('close', () => {
      record('spawn-end', detail, id)
    })
    return child
  }
  childProcesses.spawn = traced as unknown as typeof ChildProcesses.spawn
  syncBuiltinESMExports()

  const stdout = process.stdout
  const write = stdout.write.bind(stdout)
  let seen = false
  const firstWrite = (...args: unknown[]): boolean => {
    if (!seen) {
      seen = true
      // The first line is usually `::add-mask::<secret>`: keep the command, not the value.
      record(
        'stdout',
        String(args[0])
          .replace(/^(::add-mask::).*/s, '$1***')
          .slice(0, 80)
      )
    }
    return Reflect.apply(write, stdout, args) as boolean
  }
  stdout.write = firstWrite

  process.on('exit', () => {
    record('exit', '')
    const trace: Trace = { events, maxRssKb: process.resourceUsage().maxRSS }
    writeFileSync(path, JSON.stringify(trace))
  })
}
