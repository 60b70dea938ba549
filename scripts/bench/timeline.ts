import type { Trace, TraceEvent } from './trace.js'

/**
 * Where one traced run's time went: consecutive phases between landmarks of the trace (first
 * GitHub request, git, first and last judge call, GitHub writes, exit). Phases whose landmark is
 * missing (no judges, no comment) are merged into the next one.
 */

export interface Phase {
  readonly name: string
  readonly ms: number
}

export interface Breakdown {
  readonly totalMs: number
  readonly phases: readonly Phase[]
  /**
   * The gaps between a GitHub response and each write after the first: a throttling plugin's
   * pacing (1 s a write before bbe3efd), or the work done before the write (rendering it).
   */
  readonly writePacingMs: number
  readonly githubWrites: number
  /** Every request and child process: `+ms  duration  what`. */
  readonly timeline: readonly string[]
}

export function breakdown(
  trace: Trace,
  origins: { readonly github: string; readonly providers: string }
): Breakdown {
  const events = [...trace.events].sort((a, b) => a.at - b.at)
  const is =
    (kind: TraceEvent['kind'], test: (e: TraceEvent) => boolean) =>
    (e: TraceEvent): boolean =>
      e.kind === kind && test(e)
  const github = (e: TraceEvent): boolean => e.detail.includes(origins.github)
  const provider = (e: TraceEvent): boolean => e.detail.includes(origins.providers)
  const git = (e: TraceEvent): boolean => e.detail.startsWith('git ')
  const first = (test: (e: TraceEvent) => boolean, after = -1): number | undefined =>
    events.find(e => e.at > after && test(e))?.at
  const last = (test: (e: TraceEvent) => boolean): number | undefined => events.findLast(test)?.at

  const exit = last(e => e.kind === 'exit') ?? 0
  const lastJudge = last(is('http-end', provider))
  const landmarks: [string, number | undefined][] = [
    ['node start, load and run the bundle', first(e => e.kind === 'stdout')],
    ['inputs, event, Octokit', first(is('http-start', github))],
    ['GitHub reads (user, comments, base rubric)', first(is('spawn-start', git))],
    ['git (merge base, diff)', last(is('spawn-end', git))],
    ['evidence (parse, redact, tokenise) + prompts', first(is('http-start', provider))],
    ['council (judges)', lastJudge],
    ['verdict, render', first(is('http-start', github), lastJudge ?? -1)],
    ['head check; render and post comment and check run', last(is('http-end', github))],
    ['JSON report, job summary, exit', exit]
  ]
  const phases: Phase[] = []
  let previous = 0
  let pending = ''
  for (const [name, at] of landmarks) {
    const label = pending === '' ? name : `${pending} + ${name}`
    if (at === undefined || at < previous) {
      pending = label
      continue
    }
    phases.push({ name: label, ms: at - previous })
    previous = at
    pending = ''
  }

  // Pacing: for each write after the first, the idle gap since the previous GitHub response.
  let writePacingMs = 0
  let githubWrites = 0
  let lastResponse: number | undefined
  for (const e of events) {
    if (!github(e)) continue
    if (e.kind === 'http-end') lastResponse = e.at
    if (e.kind === 'http-start' && /^(POST|PATCH|PUT|DELETE) /.test(e.detail)) {
      if (githubWrites > 0 && lastResponse !== undefined) writePacingMs += e.at - lastResponse
      githubWrites++
    }
  }

  const timeline: string[] = []
  const ends = new Map(events.filter(e => e.kind.endsWith('-end')).map(e => [e.id, e.at]))
  for (const e of events) {
    if (e.kind.endsWith('-end')) continue
    const end = ends.get(e.id)
    const duration =
      e.kind.endsWith('-start') && end !== undefined ? `${(end - e.at).toFixed(0)} ms` : ''
    const what = e.detail
      .replace(origins.github, 'github')
      .replace(origins.providers, 'provider')
      .replace(/[0-9a-f]{40}/g, sha => sha.slice(0, 7))
    timeline.push(
      `+${e.at.toFixed(0).padStart(5)} ms ${duration.padStart(8)}  ${e.kind.replace('-start', '')} ${what}`.trimEnd()
    )
  }
  return { totalMs: exit, phases, writePacingMs, githubWrites, timeline }
}
