import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

/**
 * Attributes a V8 CPU profile (`node --cpu-prof`) of the bundled action to the packages the
 * bundle was built from. ncc concatenates the ES modules into one function, so self time is split
 * by line (`positionTicks`), and each line is mapped to the package of the
 * `// CONCATENATED MODULE: ./node_modules/<package>/…` section it is in.
 */

interface CpuProfileNode {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly positionTicks?: readonly { line: number; ticks: number }[]
}

interface CpuProfile {
  readonly nodes: readonly CpuProfileNode[]
  readonly samples: readonly number[]
  readonly timeDeltas: readonly number[]
}

export interface Share {
  readonly name: string
  readonly ms: number
}

/** The package each line of the bundle comes from (1-based lines). */
function packagesByLine(bundle: string): (line: number) => string {
  const starts: { line: number; name: string }[] = []
  bundle.split('\n').forEach((text, i) => {
    const concatenated = /CONCATENATED MODULE: \.\/(.+)$/.exec(text)
    if (concatenated) {
      const path = concatenated[1] ?? ''
      const inModules = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)
      starts.push({ line: i + 1, name: inModules?.[1] ?? 'the action (src/)' })
    } else if (/^\/\*\*\*\/ \d+:$/.test(text)) {
      starts.push({ line: i + 1, name: 'CommonJS dependencies (@actions/*, undici, …)' })
    }
  })
  return line => {
    let low = 0
    let high = starts.length - 1
    let found = 'bundle runtime'
    while (low <= high) {
      const mid = (low + high) >> 1
      const start = starts[mid]
      if (start === undefined) break
      if (start.line <= line) {
        found = start.name
        low = mid + 1
      } else high = mid - 1
    }
    return found
  }
}

/** The bundle's size by package, largest first: what V8 has to parse and compile at every start. */
export function bytesByPackage(bundlePath: string): { name: string; bytes: number }[] {
  const bundle = readFileSync(bundlePath, 'utf8')
  const packageOf = packagesByLine(bundle)
  const sizes = new Map<string, number>()
  bundle.split('\n').forEach((text, i) => {
    const name = packageOf(i + 1)
    sizes.set(name, (sizes.get(name) ?? 0) + Buffer.byteLength(text) + 1)
  })
  return [...sizes].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes)
}

export interface ProfileShares {
  /** Self time by package (and by V8's own work: compiling the bundle, GC), largest first. */
  readonly byPackage: readonly Share[]
  /** Self time by function of the bundle, `name (package)`, largest first. */
  readonly byFunction: readonly Share[]
}

export function profileByPackage(profilePath: string, bundlePath: string): ProfileShares {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile
  const packageOf = packagesByLine(readFileSync(bundlePath, 'utf8'))
  const bundleUrl = pathToFileURL(bundlePath).href
  const selfUs = new Map<number, number>()
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  const shares = new Map<string, number>()
  const add = (name: string, us: number): void => {
    shares.set(name, (shares.get(name) ?? 0) + us)
  }
  const functions = new Map<string, number>()
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0
    if (us === 0) continue
    const { functionName, url, lineNumber } = node.callFrame
    if (url === bundleUrl) {
      // ncc names a module's wrapper by its id; the ES modules all share one (top-level code).
      const fn = /^\d+$/.test(functionName)
        ? `top-level code of bundled module ${functionName}`
        : `${functionName || '(anonymous)'} at line ${lineNumber + 1} (${packageOf(lineNumber + 1)})`
      functions.set(fn, (functions.get(fn) ?? 0) + us)
      const ticks = node.positionTicks ?? []
      const total = ticks.reduce((sum, t) => sum + t.ticks, 0)
      if (total === 0) add(packageOf(lineNumber + 1), us)
      else for (const t of ticks) add(packageOf(t.line), (us * t.ticks) / total)
    } else if (functionName === 'compileSourceTextModule') {
      add('V8: parse and compile dist/index.js', us)
    } else if (functionName === '(garbage collector)') {
      add('V8: garbage collection', us)
    } else if (functionName === '(idle)') {
      add('idle (waiting for I/O)', us)
    } else {
      add('Node.js internals and other', us)
    }
  }
  const sorted = (map: Map<string, number>): Share[] =>
    [...map].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms)
  return { byPackage: sorted(shares), byFunction: sorted(functions) }
}
