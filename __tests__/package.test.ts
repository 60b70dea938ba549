import { execFile, execFileSync } from 'node:child_process'
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { isBuiltin } from 'node:module'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { promisify } from 'node:util'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readPinFacts } from '../src/init/pin-facts.js'
import { VERSION } from '../src/version.js'
import { Repository } from './helpers/action-run.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { mcpClient } from './helpers/mcp-client.js'
import { NEEDS_24, onNode20 } from './helpers/node20.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'

/**
 * The package as `npm pack` makes it, installed as a user installs the CLI (`npm install --global`,
 * here into an empty temporary prefix) with npm offline: it has no dependency to fetch, since the
 * bundles hold all they run. From there it runs `--help`, `check` against a repository with judges
 * played by the provider stand-in, and `mcp` for an agent; it is small, and it records the commit it
 * was packed from, for `init`'s pin.
 */

const ROOT = join(import.meta.dirname, '..')
const base = mkdtempSync(join(tmpdir(), 'rc-package-'))
const prefix = join(base, 'prefix')
/** Where `npm install --global --prefix` puts the package and the command, on Linux and macOS. */
const installed = join(prefix, 'lib', 'node_modules', 'rubric-council')
const cli = join(prefix, 'bin', 'rubric-council')

/** What a user's own install may take on disk, the package and npm's records of it included. */
const SIZE_BUDGET = 10_000_000

/** No user or system git configuration, a fixed identity, and no provider key. */
const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Package Test',
  GIT_AUTHOR_EMAIL: 'package@example.com',
  GIT_COMMITTER_NAME: 'Package Test',
  GIT_COMMITTER_EMAIL: 'package@example.com',
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: ''
}

/** Asynchronous: the provider stand-in answers from this process while the command runs. */
async function run(
  command: string,
  args: readonly string[],
  cwd: string,
  extraEnv: Record<string, string> = {}
): Promise<{ code: number; out: string; err: string }> {
  return promisify(execFile)(command, args, { cwd, env: { ...env, ...extraEnv } }).then(
    ({ stdout, stderr }) => ({ code: 0, out: stdout, err: stderr }),
    (error: unknown) => {
      const failed = error as { code: number; stdout: string; stderr: string }
      return { code: failed.code, out: failed.stdout, err: failed.stderr }
    }
  )
}

/** Bytes on disk (allocated blocks, as `du` counts them) of `path` and all below it. */
function diskUsage(path: string): number {
  const stat = lstatSync(path)
  const own = stat.blocks * 512
  if (!stat.isDirectory()) return own
  return readdirSync(path).reduce((sum, name) => sum + diskUsage(join(path, name)), own)
}

let packedFiles: string[] = []
let install = { code: 0, out: '', err: '' }
let standIn: StandIn
beforeAll(async () => {
  standIn = await startProviderStandIn()
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', base], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe']
    })
  ) as { filename: string; files: { path: string }[] }[]
  packedFiles = (packed[0]?.files ?? []).map(f => f.path)
  const tarball = join(base, packed[0]?.filename ?? '')
  install = await run(
    'npm',
    ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball],
    base
  )
  expect(install, 'npm install').toMatchObject({ code: 0 })
}, 120_000)
afterAll(async () => {
  await standIn.close()
  rmSync(base, { recursive: true, force: true })
})

describe('the npm package, installed into an empty prefix', { timeout: 60_000 }, () => {
  it(`installs offline with no dependency, no warning, and takes at most ${SIZE_BUDGET.toLocaleString('en')} bytes on disk`, () => {
    expect(readdirSync(join(prefix, 'lib', 'node_modules'))).toEqual(['rubric-council'])
    expect(readdirSync(installed)).not.toContain('node_modules')
    expect(install.err).not.toMatch(/warn/i)
    const bytes = diskUsage(prefix)
    console.log(
      `npm install --global of the packed CLI: ${bytes.toLocaleString('en')} bytes on disk`
    )
    expect(bytes).toBeLessThanOrEqual(SIZE_BUDGET)
  })

  it('ships every file its bundles load, and they load nothing else but Node’s own modules', async () => {
    // esbuild follows every import, static or dynamic, and fails on one it cannot find.
    const { metafile } = await build({
      entryPoints: [join(installed, 'bin', 'rubric-council.js')],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'esm',
      metafile: true,
      logLevel: 'silent',
      plugins: [
        {
          name: 'builtins-only',
          setup(b) {
            b.onResolve({ filter: /^[^./]/ }, args =>
              isBuiltin(args.path)
                ? { path: args.path, external: true }
                : { errors: [{ text: `${args.importer} loads the package "${args.path}"` }] }
            )
          }
        }
      ]
    })
    const loaded = Object.keys(metafile.inputs).map(input =>
      relative(installed, join(process.cwd(), input))
    )
    expect(loaded).toContain('dist/cli/index.js')
    for (const file of loaded) expect(packedFiles).toContain(file)
  })

  it('rubric-council --help and --version answer', async () => {
    const help = await run(cli, ['--help'], base)
    expect(help.code, help.err).toBe(0)
    expect(help.out).toMatch(/^Usage: rubric-council <command>/m)
    expect(await run(cli, ['--version'], base)).toEqual({ code: 0, out: `${VERSION}\n`, err: '' })
  })

  it('rubric-council check runs the gate and asks the judge, in a repository', async () => {
    const repo = new Repository({
      '.github/rubric.md':
        '---\ncouncil:\n  models: [openai:gpt-5.4-nano]\ndimensions: false\n---\n# Ranking\n\n' +
        '## Gates\n- `node --version`\n\n## Criteria\n- tested: The ranking is covered by tests\n'
    })
    repo.commit({ 'rank.js': 'export const rank = xs => [...xs].sort()\n' }, 'Add ranking')
    const before = standIn.calls.length
    standIn.setScript(call => ({ json: wireAnswer(call.schema, {}) }))
    const r = await run(cli, ['check', '--base', 'main'], repo.dir, {
      HOME: repo.dir,
      OPENAI_API_KEY: 'sk-test-package-0123456789',
      OPENAI_BASE_URL: standIn.openaiBaseUrl
    })
    expect(r.code, r.err).toBe(0)
    expect(r.out.split('\n')[0]).toMatch(/^PASS \(exit 0\) · gates 1\/1 · must 1\/1 .*judges 1\/1$/)
    expect(standIn.calls.slice(before).map(c => c.model)).toEqual(['gpt-5.4-nano'])
  })

  it('rubric-council mcp answers an agent: initialize, then tools/list and a validate call', async () => {
    const repo = new Repository({
      '.github/rubric.md': '---\ntitle: Gates only\n---\n## Gates\n\n- `node --version`\n'
    })
    let client: Client | undefined
    try {
      client = await mcpClient(repo.dir, {}, [cli])
      expect(client.getServerVersion()).toMatchObject({ name: 'rubric-council', version: VERSION })
      const { tools } = await client.listTools()
      expect(tools.map(t => t.name).sort()).toEqual(['check', 'validate'])
      const result = await client.callTool({ name: 'validate', arguments: {} })
      expect(result.isError).toBeFalsy()
    } finally {
      await client?.close()
    }
  })

  it('on Node 20, the installed command says which Node it needs, in one line', async () => {
    const result = await onNode20([join(installed, 'bin', 'rubric-council.js'), '--help'], base)
    expect(result).toMatchObject({ code: 2, stdout: '' })
    expect(result.stderr).toMatch(NEEDS_24)
  })

  it('records the commit it was packed from, which init pins the action to', () => {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, env, encoding: 'utf8' })
    expect(JSON.parse(readFileSync(join(installed, 'commit.json'), 'utf8'))).toEqual({
      commit: head.trim()
    })
    expect(readPinFacts(join(installed, 'bin'))).toMatchObject({
      packageRoot: installed,
      checkoutHead: undefined,
      packedCommit: head.trim()
    })
  })

  it('packing leaves no commit.json behind in the checkout', async () => {
    const status = await run(
      'git',
      ['status', '--porcelain', '--ignored', '--', 'commit.json'],
      ROOT
    )
    expect(status.out).toBe('')
  })
})

describe('installing the repository’s dependencies', () => {
  it('every package with an install script has a decision in allowScripts, so npm ci warns of none', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>
      allowScripts?: Record<string, boolean>
    }
    // The bundles hold what they run: a user's install fetches nothing.
    expect(pkg.dependencies).toBeUndefined()
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>
    }
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    expect(withScripts.length).toBeGreaterThan(0)
    for (const name of withScripts) expect(Object.keys(pkg.allowScripts ?? {})).toContain(name)
  })
})
