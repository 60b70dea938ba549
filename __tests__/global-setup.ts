import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'

const ROOT = join(import.meta.dirname, '..')

/**
 * What `npm run bundle` builds the bundles from: the source, the script, and the dependencies as
 * installed (npm's record of node_modules).
 */
const BUNDLE_INPUTS = [
  'src',
  'scripts/bundle.mjs',
  'scripts/bundle-options.mjs',
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
  'tsconfig.json'
]
const BUNDLE_OUTPUTS = ['dist', 'gates/dist']

/**
 * Which inputs built which outputs, when the tests last built them. In node_modules: `npm ci`
 * starts it afresh, so a fresh clone always builds.
 */
const STAMP = join(ROOT, 'node_modules/.cache/rubric-council/bundle-stamp.json')

interface Stamp {
  readonly inputs: string
  readonly outputs: string
}

function files(path: string): string[] {
  if (!existsSync(path)) return []
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path)
    .sort()
    .flatMap(name => files(join(path, name)))
}

/** One hash of the files' paths and contents. */
function digest(paths: readonly string[]): string {
  const hash = createHash('sha256')
  for (const file of paths.flatMap(path => files(join(ROOT, path)))) {
    hash
      .update(`${relative(ROOT, file)}\0`)
      .update(readFileSync(file))
      .update('\0')
  }
  return hash.digest('hex')
}

function readStamp(): Stamp | undefined {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8')) as Stamp
  } catch {
    return undefined
  }
}

/** Whether dist/ and gates/dist/ are what the source and dependencies as they are now build. */
export function bundleIsFresh(inputs = digest(BUNDLE_INPUTS)): boolean {
  const stamp = readStamp()
  return stamp?.inputs === inputs && stamp.outputs === digest(BUNDLE_OUTPUTS)
}

/**
 * The end-to-end tests run what ships: dist/index.js, gates/dist/index.js and bin/ (which loads
 * dist/cli/). They are built here from the source under test, into dist/ itself, where the tests
 * and a user's `uses:` find them; CI then checks that what it built is what is committed. Skipped
 * when the stamp shows these very inputs built these very outputs.
 */
async function bundleIfStale(): Promise<void> {
  const inputs = digest(BUNDLE_INPUTS)
  if (bundleIsFresh(inputs)) return
  const started = performance.now()
  try {
    await promisify(execFile)(process.execPath, ['scripts/bundle.mjs'], { cwd: ROOT })
  } catch (error) {
    const { stderr } = error as { stderr?: string }
    throw new Error(
      `scripts/bundle.mjs (npm run bundle) failed, so the end-to-end tests cannot run:\n${stderr ?? ''}`,
      {
        cause: error
      }
    )
  }
  await mkdir(join(STAMP, '..'), { recursive: true })
  await writeFile(STAMP, JSON.stringify({ inputs, outputs: digest(BUNDLE_OUTPUTS) }))
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  console.log(`Built dist/ and gates/dist/ from the source under test (${seconds} s).`)
}

/**
 * Before any test: the bundles, and one temporary folder for the whole run: `TMPDIR` points into
 * it, so the repositories, events, runner folders and browser profiles the tests make (in this
 * process, its workers and the processes they start) are all inside, and all removed at the end,
 * failed tests' included. In watch mode the bundles are rebuilt before each rerun.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await bundleIfStale()
  project.onTestsRerun(bundleIfStale)
  const dir = await mkdtemp(join(tmpdir(), 'rubric-council-tests-'))
  process.env.TMPDIR = dir
  return async () => {
    await rm(dir, { recursive: true, force: true })
  }
}
