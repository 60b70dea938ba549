// Rebuilds the bundles from src/: the action (dist/index.js), the CLI (dist/cli/index.js) and the
// gates sub-action (gates/dist/index.js). They are committed; CI runs this and fails if anything
// changed.
//
// One esbuild build with code splitting: what two or three of them use (most of the dependencies)
// is one copy, in dist/chunks/, which each entry imports. The gates sub-action's entry stays in
// gates/dist/ beside its action.yml and imports those chunks by relative path (../../dist/chunks/),
// which stay within the repository the runner downloads. Minified, without source maps.
//
// Beside the bundles, licenses.txt names every third-party package compiled into them, with its
// licence and licence text (from the metafile's inputs): the bundle is what users run and what a
// release ships. dist/licenses.txt covers everything under dist/; gates/dist/licenses.txt what the
// gates sub-action loads.
import { build } from 'esbuild'
import { BUILD_OPTIONS, ENTRIES } from './bundle-options.mjs'
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { dirname, join } from 'node:path'

rmSync('dist', { recursive: true, force: true })
rmSync('gates/dist', { recursive: true, force: true })
const { metafile } = await build(BUILD_OPTIONS)

/** The outputs `from` loads, itself included, by static and by dynamic import, transitively. */
function loaded(from) {
  const seen = new Set([from])
  for (const file of seen) {
    for (const imported of metafile.outputs[file]?.imports ?? []) {
      if (!imported.external) seen.add(imported.path)
    }
  }
  return seen
}

/**
 * The gates sub-action runs the pull request's code and then uploads its results: whatever it runs
 * after that must already be in memory, or the pull request could rewrite it in the runner's
 * actions folder first. esbuild puts each `import()` target (in @azure/storage-blob: Arrow
 * listings, Negotiate proxy auth) in a chunk read from disk when first used; importing every chunk
 * the entry can reach statically, at the top of its file, loads them all before anything runs, and
 * a later `import()` of the same file gets the module already loaded, never the file again (Node
 * caches ES modules by URL).
 */
function loadChunksFirst(entry) {
  const chunks = [...loaded(entry)].filter(file => file !== entry).sort()
  const imports = chunks.map(file => `import ${JSON.stringify(relativeTo(entry, file))};\n`)
  writeFileSync(entry, imports.join('') + readFileSync(entry, 'utf8'))
}

function relativeTo(from, to) {
  const up = dirname(from)
    .split('/')
    .map(() => '..')
  return [...up, to].join('/')
}

for (const [file, output] of Object.entries(metafile.outputs)) {
  for (const imported of output.imports) {
    if (imported.external && !isBuiltin(imported.path)) {
      throw new Error(`${file} would load ${imported.path} from disk at run time`)
    }
  }
}

loadChunksFirst('gates/dist/index.js')

// esbuild writes a chunk for every import() target it meets, also where tree shaking then drops
// the code that imports it (@azure/storage-blob's Arrow listing parser): a file no entry can load
// is left out.
const reachable = new Set(Object.keys(ENTRIES).flatMap(entry => [...loaded(`${entry}.js`)]))
const outputs = Object.keys(metafile.outputs).filter(file => reachable.has(file))
for (const file of Object.keys(metafile.outputs)) if (!reachable.has(file)) rmSync(file)

// Some packages ship CRLF line ends, which esbuild keeps in strings: git stores every file with LF
// (.gitattributes), so a fresh clone's rebuild would differ from its checkout. In JavaScript a CRLF
// and an LF are the same line end (template literals normalise CRLF to LF, raw strings too).
for (const file of outputs) {
  const text = readFileSync(file, 'utf8')
  if (text.includes('\r\n')) writeFileSync(file, text.replaceAll('\r\n', '\n'))
}
for (const dir of ['dist', 'gates/dist']) {
  writeFileSync(join(dir, 'package.json'), '{\n  "type": "module"\n}\n')
}

/** The package folder under node_modules that holds `input`, or undefined for our own source. */
function packageOf(input) {
  const at = input.lastIndexOf('node_modules/')
  if (at < 0) return undefined
  const rest = input.slice(at + 'node_modules/'.length).split('/')
  const name = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]
  return input.slice(0, at) + 'node_modules/' + name
}

function licenceOf(folder) {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'))
  const file = readdirSync(folder)
    .filter(name => /^(licen[cs]e|copying)/i.test(name))
    .sort()[0]
  const text = file === undefined ? '' : readFileSync(join(folder, file), 'utf8').trim()
  const licence = typeof manifest.license === 'string' ? manifest.license : ''
  return `${manifest.name}\n${licence}\n${text.replaceAll('\r\n', '\n')}`
}

/** Writes `dir/licenses.txt` for the packages compiled into `outputs`, by name. */
function writeLicenses(dir, outputs) {
  const folders = new Set()
  for (const output of outputs) {
    for (const input of Object.keys(metafile.outputs[output]?.inputs ?? {})) {
      const folder = packageOf(input)
      if (folder !== undefined && existsSync(join(folder, 'package.json'))) folders.add(folder)
    }
  }
  const entries = [...new Set([...folders].map(licenceOf))].sort()
  if (entries.length === 0) throw new Error(`no package is compiled into ${dir}`)
  writeFileSync(join(dir, 'licenses.txt'), `${entries.join('\n\n')}\n`)
}

writeLicenses(
  'dist',
  outputs.filter(file => file.startsWith('dist/'))
)
writeLicenses('gates/dist', loaded('gates/dist/index.js'))
