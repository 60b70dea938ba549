// Rebuilds dist/ from src/: the action (dist/index.js), the CLI (dist/cli/index.js) and the
// gates sub-action (gates/dist/index.js).
// dist/ is committed; CI runs this and fails if anything changed.
//
// Beside each bundle, licenses.txt names every third-party package compiled into it, with its
// licence and licence text: the bundle is what users run and what a release ships. ncc's --license
// writes one file per webpack chunk ([name].licenses.txt); they are merged into one here, since a
// fixed file name would have each chunk overwrite the others.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const ncc = [
  'node_modules/@vercel/ncc/dist/ncc/cli.js',
  'build',
  '--quiet',
  '--no-source-map-register',
  '--license',
  '[name].licenses.txt'
]

/** Merges the per-chunk licence files of `dir` into `dir/licenses.txt`, the main chunk first. */
function mergeLicenses(dir) {
  const suffix = '.licenses.txt'
  const files = readdirSync(dir)
    .filter(f => f.endsWith(suffix))
    .sort((a, b) => (a === `main${suffix}` ? -1 : b === `main${suffix}` ? 1 : a.localeCompare(b)))
  if (files.length === 0) throw new Error(`ncc wrote no licence file in ${dir}`)
  let merged = ''
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8').trim()
    // A chunk split off the main one repeats entries the main chunk already lists.
    if (text !== '' && !merged.includes(text)) merged += (merged === '' ? '' : '\n\n') + text
    rmSync(join(dir, file))
  }
  writeFileSync(join(dir, 'licenses.txt'), `${merged}\n`)
}

/**
 * The gates sub-action runs the pull request's code and then uploads its results: whatever it
 * runs after that must already be in memory, or the pull request could rewrite it in the runner's
 * actions folder first. webpack splits `import()` targets into chunks read from disk when first
 * used (in @azure/storage-blob: Arrow listings, Negotiate proxy auth); importing each statically
 * at the top of index.js loads them before anything runs, and a later `import()` of the same file
 * gets the module already loaded, never the file again (Node caches ES modules by URL).
 */
function loadChunksFirst(dir) {
  const chunks = readdirSync(dir)
    .filter(f => /^\d+\.index\.js$/.test(f))
    .sort()
  const index = join(dir, 'index.js')
  const imports = chunks.map(f => `import './${f}';\n`).join('')
  writeFileSync(index, imports + readFileSync(index, 'utf8'))
}

rmSync('dist', { recursive: true, force: true })
rmSync('gates/dist', { recursive: true, force: true })
const builds = [
  ['src/index.ts', 'dist'],
  ['src/bin.ts', 'dist/cli'],
  ['src/gates-index.ts', 'gates/dist']
]
for (const [entry, out] of builds) {
  execFileSync(process.execPath, [...ncc, entry, '-o', out], { stdio: 'inherit' })
  mergeLicenses(out)
}
loadChunksFirst('gates/dist')
// Some packages ship CRLF line ends, which webpack keeps: git stores every file with LF
// (.gitattributes), so a fresh clone's rebuild would differ from its checkout. In JavaScript a
// CRLF and an LF are the same line end (template literals normalise CRLF to LF, raw strings too).
for (const [, out] of builds) {
  for (const file of readdirSync(out).filter(f => f.endsWith('.js'))) {
    const path = join(out, file)
    const text = readFileSync(path, 'utf8')
    if (text.includes('\r\n')) writeFileSync(path, text.replaceAll('\r\n', '\n'))
  }
}
