import { execFile, execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

/**
 * The commands `init`'s Next lines name are the CLI as the user ran it, so a line copied from the
 * terminal runs: the built CLI (bin/ → dist/cli/) started as `node <path>`, from PATH and by npx,
 * each from a project folder of its own, then the printed line run by a shell in that folder.
 */

const ROOT = join(import.meta.dirname, '..', '..')
const NODE_DIR = dirname(process.execPath)
/**
 * The folders every run needs on PATH: this node alone (its own folder may hold a linked
 * rubric-council, which would rightly change what the lines say), then git's and sh's.
 */
const BASE_PATH = (() => {
  const node = mkdtempSync(join(tmpdir(), 'rc-node-'))
  symlinkSync(process.execPath, join(node, 'node'))
  return [node, '/usr/bin', '/bin'].join(delimiter)
})()

interface Place {
  /** The project folder init runs in. */
  readonly project: string
  /** The CLI's checkout as `place` names it: a link to this repository. */
  readonly checkout: string
}

/** A project folder, and a link to this checkout at `checkoutPath` (relative to a fresh folder). */
function place(checkoutPath: string, projectPath = 'project'): Place {
  const top = mkdtempSync(join(tmpdir(), 'rc-invocation-'))
  const checkout = join(top, checkoutPath)
  mkdirSync(dirname(checkout), { recursive: true })
  symlinkSync(ROOT, checkout)
  const project = join(top, projectPath)
  mkdirSync(project, { recursive: true })
  execFileSync('git', ['init', '-q'], { cwd: project })
  return { project, checkout }
}

/** Runs `file args` in `cwd` with only `env` (no npm_* of the test run's own npm). */
async function run(
  file: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string>
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(file, args, {
      cwd,
      env: { HOME: mkdtempSync(join(tmpdir(), 'rc-home-')), TMPDIR: tmpdir(), ...env }
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string }
    return { code, stdout, stderr }
  }
}

/** The command init's last Next line names: `Check the rubric any time: <command> validate …`. */
function checkLine(stdout: string): string {
  const line = stdout.split('\n').find(l => l.startsWith('  Check the rubric any time: '))
  expect(line, stdout).toBeDefined()
  return (line ?? '').slice('  Check the rubric any time: '.length)
}

/** The line as a user pastes it into a shell in the project folder. */
async function pasted(line: string, cwd: string, PATH: string) {
  return run('/bin/sh', ['-c', line], cwd, { PATH })
}

describe('the Next lines of init name the CLI as the user ran it', () => {
  it('`node ../rubric-council/bin/rubric-council.js`: that path, relative to the project folder', async () => {
    const { project } = place('rubric-council')
    const result = await run(
      process.execPath,
      ['../rubric-council/bin/rubric-council.js', 'init'],
      project,
      { PATH: BASE_PATH }
    )
    expect(result.code, result.stderr).toBe(0)
    const line = checkLine(result.stdout)
    expect(line).toBe('node ../rubric-council/bin/rubric-council.js validate .github/rubric.md')
    const again = await pasted(line, project, BASE_PATH)
    expect([again.code, again.stdout]).toEqual([0, expect.stringContaining('.github/rubric.md')])
  })

  it('an absolute path where the relative one would be longer', async () => {
    // Deep enough that the "../" to climb out are longer than the checkout's absolute path.
    const depth = Math.ceil((tmpdir().length + 60) / 3)
    const { project, checkout } = place('rc', `${'d/'.repeat(depth)}project`)
    const result = await run(
      process.execPath,
      [join(checkout, 'bin/rubric-council.js'), 'init'],
      project,
      {
        PATH: BASE_PATH
      }
    )
    const line = checkLine(result.stdout)
    expect(line).toBe(`node ${join(checkout, 'bin/rubric-council.js')} validate .github/rubric.md`)
    expect((await pasted(line, project, BASE_PATH)).code).toBe(0)
  })

  it('node by its full path when the first node on PATH is another one', async () => {
    const { project } = place('rubric-council')
    const other = mkdtempSync(join(tmpdir(), 'rc-other-node-'))
    writeFileSync(join(other, 'node'), '#!/bin/sh\necho "another node"\nexit 3\n')
    chmodSync(join(other, 'node'), 0o755)
    const PATH = [other, BASE_PATH].join(delimiter)
    const result = await run(
      process.execPath,
      ['../rubric-council/bin/rubric-council.js', 'init'],
      project,
      { PATH }
    )
    const line = checkLine(result.stdout)
    expect(line).toBe(
      `${process.execPath} ../rubric-council/bin/rubric-council.js validate .github/rubric.md`
    )
    expect((await pasted(line, project, PATH)).code).toBe(0)
  })

  it('`rubric-council` when it is the one on PATH', async () => {
    const { project, checkout } = place('rubric-council')
    const bin = mkdtempSync(join(tmpdir(), 'rc-bin-'))
    symlinkSync(join(checkout, 'bin/rubric-council.js'), join(bin, 'rubric-council'))
    const PATH = [bin, BASE_PATH].join(delimiter)
    const result = await run('rubric-council', ['init', '--calibrate'], project, { PATH })
    expect(result.stdout).toContain(
      '  1. Write the calibration set, .github/rubric-calibration.yml: rubric-council calibrate --propose 20'
    )
    const rubrics = await run('rubric-council', ['init', '--rubrics'], project, { PATH })
    const line = checkLine(rubrics.stdout)
    expect(line).toBe('rubric-council validate .github/rubric.md')
    expect((await pasted(line, project, PATH)).code).toBe(0)
  })

  it('`npx rubric-council` when npx ran it', async () => {
    const { project, checkout } = place('rubric-council')
    // The project depends on the CLI as an installed package would: node_modules and its bin link.
    writeFileSync(
      join(project, 'package.json'),
      '{ "name": "project", "version": "1.0.0", "devDependencies": { "rubric-council": "*" } }\n'
    )
    mkdirSync(join(project, 'node_modules/.bin'), { recursive: true })
    symlinkSync(checkout, join(project, 'node_modules/rubric-council'))
    symlinkSync(
      '../rubric-council/bin/rubric-council.js',
      join(project, 'node_modules/.bin/rubric-council')
    )
    const npx = [NODE_DIR, ...(process.env.PATH ?? '').split(delimiter)]
      .map(folder => join(folder, 'npx'))
      .find(file => existsSync(file))
    expect(npx, 'npx, beside node or on PATH').toBeDefined()
    const PATH = [NODE_DIR, dirname(npx ?? ''), BASE_PATH].join(delimiter)
    // Offline: the package is in node_modules, and no registry is asked.
    const env = { PATH, npm_config_offline: 'true', npm_config_update_notifier: 'false' }
    const result = await run(npx ?? 'npx', ['rubric-council', 'init'], project, env)
    const line = checkLine(result.stdout)
    expect(line).toBe('npx rubric-council validate .github/rubric.md')
    expect((await run('/bin/sh', ['-c', line], project, env)).code).toBe(0)
  })

  it('a path with spaces and shell syntax is quoted: the pasted line runs the CLI and nothing else', async () => {
    const folder = "it's a $(touch pwned) `touch pwned` ; touch pwned & dir"
    const { project } = place(`${folder}/rubric-council`)
    const script = `../${folder}/rubric-council/bin/rubric-council.js`
    const result = await run(process.execPath, [script, 'init', '--rubrics'], project, {
      PATH: BASE_PATH
    })
    expect(result.code, result.stderr).toBe(0)
    const line = checkLine(result.stdout)
    expect(line.endsWith(' validate .github/rubric.md')).toBe(true)
    const again = await pasted(line, project, BASE_PATH)
    expect([again.code, again.stderr]).toEqual([0, ''])
    expect(again.stdout).toContain('.github/rubric.md')
    const validateAll = result.stdout
      .split('\n')
      .find(l => l.startsWith('  3. Check them all: '))
      ?.slice('  3. Check them all: '.length)
      .replace(/ \(it also names paths that match no file\)\.$/, '')
    expect(validateAll).toBe(line.replace(/ \.github\/rubric\.md$/, ''))
    for (const where of [project, dirname(project), join(project, '..', folder)])
      expect(existsSync(join(where, 'pwned')), where).toBe(false)
  })
})
