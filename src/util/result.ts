/**
 * The one shape of an expected failure: a value, or the problem that stopped it. Exceptions are
 * for bugs and for what the edges (a process, the network) throw; an edge turns the failures it
 * expects into a `Result` before they travel further.
 */
export type Result<T, P = string> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: P }

export function ok<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value }
}

export function failed<P>(problem: P): { readonly ok: false; readonly problem: P } {
  return { ok: false, problem }
}
