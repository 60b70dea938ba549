import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fileProblem, type CliIo } from '../src/cli/io.js'
import { main } from '../src/cli.js'

/** The newcomer's mistakes, through the CLI's entry, as a user in `cwd` would make them. */
async function cli(
  argv: string[],
  cwd: string,
  env: Record<string, string> = {}
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = { stdout: l => out.push(l), stderr: l => err.push(l), env, cwd }
  return { code: await main(argv, io), out, err }
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    stdio: 'ignore'
  })
}

/** A clone on a feature branch off main, with one change. */
function repository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-mistake-'))
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'start')
  git(dir, 'checkout', '-q', '-b', 'feature')
  writeFileSync(join(dir, 'a.txt'), 'a\n')
  git(dir, 'add', 'a.txt')
  return dir
}

/** A rubric whose gate leaves a marker: the marker says whether any gate ran. */
const MARKING = 'touch gate-ran\nagent: The change is tested'

describe('a usage mistake gets one line and exit 2', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-usage-'))
  it.each([
    [
      ['check', '--modle', 'x'],
      'rubric-council: unknown option "--modle" for check; did you mean "--models"? (see rubric-council check --help)'
    ],
    [
      ['chek'],
      'rubric-council: unknown command "chek"; did you mean "check"? (see rubric-council --help)'
    ],
    [
      ['init', '--froce'],
      'rubric-council: unknown option "--froce" for init; did you mean "--force"? (see rubric-council init --help)'
    ],
    [
      ['check', '--json'],
      'rubric-council: option "--json" of check needs a value: --json FILE (see rubric-council check --help)'
    ],
    [
      ['check', '--base', '--dry-run'],
      'rubric-council: option "--base" of check needs a value: --base REF (see rubric-council check --help)'
    ],
    [
      ['validate', '--base', 'main'],
      'rubric-council: --base belongs to the check command (see rubric-council validate --help)'
    ]
  ])('%j', async (argv, line) => {
    const result = await cli(argv, dir)
    expect(result).toEqual({ code: 2, out: [], err: [line] })
    expect(existsSync(join(dir, 'gate-ran'))).toBe(false)
  })
})

describe('rubric-council <command> --help', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rc-help-'))
  const help = async (argv: string[]): Promise<string> => {
    const result = await cli(argv, dir)
    expect(result.code).toBe(0)
    expect(result.err).toEqual([])
    return result.out.join('\n')
  }

  it('is each command’s own, with every option, an example and the exit codes', async () => {
    const check = await help(['check', '--help'])
    const validate = await help(['validate', '--help'])
    const init = await help(['init', '-h'])
    expect(new Set([check, validate, init]).size).toBe(3)
    for (const option of [
      '--rubric FILE',
      '--checker TEXT',
      '--json FILE',
      '--markdown FILE',
      '--models LIST',
      '--base REF',
      '--dry-run',
      '-h, --help'
    ]) {
      expect(check).toContain(option)
    }
    expect(init).toContain('--forks')
    expect(init).toContain('--force')
    expect(check).toContain('Usage: rubric-council check [options]')
    expect(check).toContain('  rubric-council check --base main --json report.json')
    expect(check).toMatch(/Exit codes:\n {2}0 +PASS\n {2}1 +FAIL\n {2}2 +UNCLEAR/)
    expect(validate).toMatch(/Exit codes:\n {2}0 +every file is a valid rubric\n {2}1 +a file/)
    for (const text of [check, validate, init]) {
      expect(text).not.toMatch(/\n\n\n/)
      expect(text).toMatch(
        /Docs: https:\/\/github\.com\/rubric-council\/rubric-council\/blob\/main\/docs\//
      )
      expect(text).not.toMatch(/(?<!\/)docs\/\w+\.md/)
    }
  })

  it('wins over any other argument, even a mistake', async () => {
    expect(await help(['check', '--modle', 'x', '--help'])).toBe(await help(['check', '--help']))
    expect(await help(['help', 'validate'])).toBe(await help(['validate', '--help']))
  })

  it('lists the commands at the top level', async () => {
    const top = await help(['--help'])
    expect(top).toMatch(/Commands:\n {2}check +\S.*\n {2}validate +\S.*\n {2}init +\S/)
    expect(top).toContain('Run "rubric-council <command> --help"')
  })
})

describe('rubric-council check: preconditions before any gate', () => {
  it('outside a git repository', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-nogit-'))
    const result = await cli(['check', '--checker', MARKING], dir)
    expect(result).toEqual({
      code: 2,
      out: [],
      err: [
        `rubric-council: not a git repository: ${dir} (the judges read the diff; run check in a clone)`
      ]
    })
    expect(existsSync(join(dir, 'gate-ran'))).toBe(false)
  })

  it('a --base that names nothing', async () => {
    const dir = repository()
    const result = await cli(['check', '--checker', MARKING, '--base', 'develop'], dir)
    expect(result).toEqual({
      code: 2,
      out: [],
      err: [
        'rubric-council: the base "develop" is no branch or commit of this repository (tried develop and origin/develop): fetch it (git fetch origin) or pass another --base'
      ]
    })
    expect(existsSync(join(dir, 'gate-ran'))).toBe(false)
  })

  it('no base given, and none to fall back on', async () => {
    const dir = repository()
    git(dir, 'branch', '-m', 'main', 'trunk')
    const result = await cli(['check', '--checker', MARKING], dir)
    expect(result.code).toBe(2)
    expect(result.err).toEqual([
      'rubric-council: no base to compare with: the remote has no default branch (origin/HEAD) and none of origin/main, main, origin/master, master exists; pass one with --base <branch or commit>'
    ])
    expect(existsSync(join(dir, 'gate-ran'))).toBe(false)
  })

  it.each([
    [
      ['--json', 'missing/dir/r.json'],
      'rubric-council: cannot write the JSON report to missing/dir/r.json: the folder {dir}/missing/dir does not exist'
    ],
    [
      ['--markdown', 'folder'],
      'rubric-council: cannot write the Markdown report to folder: it is a folder'
    ]
  ])('a report that cannot be written: %j', async (args, line) => {
    const dir = repository()
    mkdirSync(join(dir, 'folder'))
    const result = await cli(['check', '--checker', MARKING, ...args], dir)
    expect(result).toEqual({ code: 2, out: [], err: [line.replace('{dir}', dir)] })
    expect(existsSync(join(dir, 'gate-ran'))).toBe(false)
  })

  it('a report folder that is a file', async () => {
    const dir = repository()
    const result = await cli(['check', '--checker', MARKING, '--json', 'a.txt/r.json'], dir)
    expect(result.err).toEqual([
      `rubric-council: cannot write the JSON report to a.txt/r.json: ${dir}/a.txt is not a folder`
    ])
    expect(existsSync(join(dir, 'gate-ran'))).toBe(false)
  })
})

describe('rubric-council check: a rubric file that cannot be read', () => {
  it.each([
    [
      [],
      'rubric-council: .github/rubric.md: error: rubric file not found [missing-file] (pass --rubric FILE, or write one with rubric-council init)'
    ],
    [
      ['--rubric', 'folder'],
      'rubric-council: folder: error: is a directory, not a rubric file [unreadable-file]'
    ]
  ])('%j: one line naming the file, and nothing runs', async (args, line) => {
    const dir = repository()
    mkdirSync(join(dir, 'folder'))
    expect(await cli(['check', ...args], dir)).toEqual({ code: 2, out: [], err: [line] })
  })
})

describe('rubric-council validate: a folder', () => {
  it('is skipped in one line, and a folder alone is not a pass', async () => {
    const dir = repository()
    mkdirSync(join(dir, 'folder'))
    expect(await cli(['validate', 'folder'], dir)).toEqual({
      code: 1,
      out: [],
      err: ['folder: a folder, not a rubric; skipped']
    })
  })
})

describe('fileProblem', () => {
  it('puts a file-system error in a few words, and leaves a bug alone', async () => {
    const missing = await readFile('/nonexistent/r.json').catch((error: unknown) => error)
    expect(fileProblem(missing)).toBe('no such file or folder')
    expect(fileProblem(new TypeError('x is undefined'))).toBeUndefined()
  })
})

describe('rubric-council check in a terminal without keys', () => {
  it('says to set a key in the environment, not the workflow, and does not offer --models', async () => {
    const dir = repository()
    const result = await cli(['check', '--checker', 'agent: The change is tested'], dir)
    expect(result.code).toBe(2)
    const lines = result.out.join('\n').split('\n')
    const reason = lines.find(l => l.includes('missing_credentials:')) ?? ''
    expect(reason.trim()).toBe(
      'missing_credentials: the council is unavailable: 0 valid answers of 0, quorum 1: no judge could be formed: no provider API key is set. Set OPENAI_API_KEY (or ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENROUTER_API_KEY) in your environment.'
    )
    expect(result.out.join('\n')).not.toMatch(/workflow|--models|name models/)
  })

  it('previews the pull request comment in its own words with --dry-run', async () => {
    const dir = repository()
    const result = await cli(
      ['check', '--checker', 'agent: The change is tested', '--dry-run'],
      dir
    )
    expect(result.code).toBe(2)
    const comment = result.out.join('\n')
    expect(comment).toContain(
      'no judge could be formed; set an API key for a provider or name models. Set a provider API key (e.g. OPENAI\\_API\\_KEY) in the workflow’s env'
    )
    expect(comment).not.toContain('in your environment')
  })
})
