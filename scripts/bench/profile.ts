import { build, type Metafile } from 'esbuild'
import { readdirSync, readFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BUILD_OPTIONS } from '../bundle-options.mjs'
import { ROOT } from './child.js'

/**
 * Attributes a V8 CPU profile (`node --cpu-prof`) of the bundled action to the files of dist/ the
 * time was spent in (the entry and the chunks it imports) and to the packages the code came from.
 * dist/ is minified and has no source maps: the bench builds the same bundle again with
 * `npm run bundle`'s options (scripts/bundle-options.mjs) and source maps, in memory, and uses a
 * file's map only when the build gives that file byte for byte as measured. A function's self time
 * goes to the package of the source its first character comes from; a chunk's top-level code (the
 * modules' initialisation, which esbuild concatenates) is shown on its own.
 */

interface CpuProfileNode {
  readonly id: number
  readonly callFrame: {
    functionName: string
    url: string
    lineNumber: number
    columnNumber: number
  }
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

export interface BundleMap {
  /** The folder measured (a copy of dist/). */
  readonly dir: string
  /** Per file of `dir` (relative path), its source map, when the build gave the same file. */
  readonly maps: ReadonlyMap<string, SourceMap>
  /** Files of `dir` the build of src/ gives otherwise (their time goes to the file only). */
  readonly differing: readonly string[]
  /** What the action loads (dist/index.js and its chunks), bytes by package, largest first. */
  readonly bytesByPackage: readonly { readonly name: string; readonly bytes: number }[]
}

const OWN_CODE = 'the action (src/)'

/**
 * `chunks/chunk-7KZTLIUC.js` as `chunks/chunk-########.js`, in a path or in the code that imports
 * it: with source maps, esbuild hashes the chunks' names otherwise. Same length, same columns.
 */
const unhashed = (text: string): string => text.replace(/-[A-Z0-9]{8}\.js\b/g, '-########.js')

/** `node_modules/@scope/name/…` → `@scope/name`; our own source → `OWN_CODE`. */
function packageOf(source: string): string {
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)
  if (inModules) return inModules[1] ?? source
  return /(^|\/)src\//.test(source) ? OWN_CODE : source
}

/** The outputs `entry` loads, itself included, transitively. */
function loaded(metafile: Metafile, entry: string): string[] {
  const seen = new Set([entry])
  for (const file of seen) {
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (!imported.external) seen.add(imported.path)
    }
  }
  return [...seen]
}

/** Builds src/ as `npm run bundle` does, with source maps, and matches it to `dir`. */
export async function mapBundle(dir: string): Promise<BundleMap> {
  const result = await build({
    ...BUILD_OPTIONS,
    absWorkingDir: ROOT,
    sourcemap: 'external',
    write: false,
    logLevel: 'error'
  })
  const texts = new Map(result.outputFiles.map(f => [relative(ROOT, f.path), f.text]))
  // Chunks that differ only by hash share a key: each built file is matched by its content.
  const measured = new Map<string, string>()
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (file.endsWith('.js')) measured.set(file, unhashed(readFileSync(join(dir, file), 'utf8')))
  }
  const maps = new Map<string, SourceMap>()
  for (const [path, text] of texts) {
    const map = texts.get(`${path}.map`)
    if (!path.startsWith('dist/') || map === undefined) continue
    const key = unhashed(path.slice('dist/'.length))
    // npm run bundle stores CRLF as LF (scripts/bundle.mjs): line ends only, no column moves.
    const built = unhashed(text.replaceAll('\r\n', '\n'))
    const file = [...measured].find(
      ([name, code]) => unhashed(name) === key && code === built && !maps.has(name)
    )?.[0]
    if (file === undefined) continue
    maps.set(file, new SourceMap(JSON.parse(map) as ConstructorParameters<typeof SourceMap>[0]))
  }
  const differing = [...measured.keys()].filter(file => !maps.has(file)).sort()
  const sizes = new Map<string, number>()
  for (const output of loaded(result.metafile, 'dist/index.js')) {
    for (const [input, { bytesInOutput }] of Object.entries(
      result.metafile.outputs[output]?.inputs ?? {}
    )) {
      const name = packageOf(input)
      sizes.set(name, (sizes.get(name) ?? 0) + bytesInOutput)
    }
  }
  const bytesByPackage = [...sizes]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
  return { dir, maps, differing, bytesByPackage }
}

export interface ProfileShares {
  /** Self time by file of dist/ (and by V8's own work: compiling, GC), largest first. */
  readonly byFile: readonly Share[]
  /** Self time by package (and by V8's own work), largest first. */
  readonly byPackage: readonly Share[]
  /** Self time by function of the bundle, `name (package, source:line)`, largest first. */
  readonly byFunction: readonly Share[]
}

/** Where a function of the bundle comes from: its package and source line, by the source map. */
function origin(
  bundle: BundleMap,
  file: string,
  frame: CpuProfileNode['callFrame']
): { readonly name: string; readonly where: string } {
  if (frame.functionName === '' && frame.lineNumber === 0 && frame.columnNumber === 0) {
    return { name: `top-level code of dist/${file}`, where: `dist/${file}` }
  }
  const entry = bundle.maps.get(file)?.findEntry(frame.lineNumber, frame.columnNumber)
  if (entry === undefined || !('originalSource' in entry)) {
    return { name: `dist/${file}, no source position (esbuild's own code)`, where: `dist/${file}` }
  }
  const source = entry.originalSource.replace(/^(\.\.\/)+/, '')
  return { name: packageOf(source), where: `${source}:${String(entry.originalLine + 1)}` }
}

export function profileByPackage(profilePath: string, bundle: BundleMap): ProfileShares {
  const profile = JSON.parse(readFileSync(profilePath, 'utf8')) as CpuProfile
  const selfUs = new Map<number, number>()
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  })
  const byFile = new Map<string, number>()
  const byPackage = new Map<string, number>()
  const byFunction = new Map<string, number>()
  const add = (map: Map<string, number>, name: string, us: number): void => {
    map.set(name, (map.get(name) ?? 0) + us)
  }
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0
    if (us === 0) continue
    const { functionName, url } = node.callFrame
    const file = url.startsWith('file:') ? relative(bundle.dir, fileURLToPath(url)) : '..'
    if (!file.startsWith('..')) {
      const { name, where } = origin(bundle, file, node.callFrame)
      add(byFile, `dist/${file}`, us)
      add(byPackage, name, us)
      add(byFunction, `${functionName || '(anonymous)'} (${name}, ${where})`, us)
      continue
    }
    const own =
      functionName === 'compileSourceTextModule'
        ? 'V8: parse and compile dist/'
        : functionName === '(garbage collector)'
          ? 'V8: garbage collection'
          : functionName === '(idle)'
            ? 'idle (waiting for I/O)'
            : 'Node.js internals and other'
    add(byFile, own, us)
    add(byPackage, own, us)
  }
  const sorted = (map: Map<string, number>): Share[] =>
    [...map].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms)
  return { byFile: sorted(byFile), byPackage: sorted(byPackage), byFunction: sorted(byFunction) }
}
