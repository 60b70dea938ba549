import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, mkdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CliIo } from '../../src/cli/io.js'
import { main } from '../../src/cli.js'
import { parseRubric } from '../../src/rubric/parse.js'

/** `validate` and `init --rubrics` in a repository with several rubrics in `.github/rubrics/`. */

async function repository(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rc-rubrics-'))
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true })
    await writeFile(join(dir, path), text)
  }
  execFileSync('git', ['init', '-q'], { cwd: dir })
  execFileSync('git', ['add', '-A'], { cwd: dir })
  return dir
}

async function cli(argv: string[], cwd: string) {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = {
    stdout: l => out.push(l),
    stderr: l => err.push(l),
    env: { PATH: process.env.PATH },
    cwd
  }
  const code = await main(argv, io)
  return { code, out: out.join('\n'), err: err.join('\n') }
}

const rubric = (front: string): string => `---\n${front}\n---\n## Criteria\n- a: A\n`

describe('validate with several rubrics', () => {
  it('checks the main rubric and every rubric in .github/rubrics/ when given no file', async () => {
    const dir = await repository({
      '.github/rubric.md': rubric('title: All'),
      '.github/rubrics/payments.md': rubric('paths: [services/payments/**]'),
      '.github/rubrics/docs.yml':
        'paths: [docs/**]\ncriteria:\n  - id: clear\n    description: Clear\n',
      'services/payments/a.ts': 'a\n',
      'docs/a.md': 'a\n'
    })
    const result = await cli(['validate'], dir)
    expect(result.code).toBe(0)
    expect(result.err).not.toContain('note: every rubric is scoped')
    expect(result.out.split('\n').map(l => l.split(':')[0])).toEqual([
      '.github/rubric.md',
      '.github/rubrics/docs.yml',
      '.github/rubrics/payments.md',
      '3 of 3 rubrics valid'
    ])
  })

  it('fails on a paths pattern that matches no file, at its line, and on two rubrics of one name', async () => {
    const dir = await repository({
      '.github/rubrics/payments.md': rubric(
        "paths:\n  - 'services/payments/**'\n  - 'servces/payments/**'"
      ),
      '.github/rubrics/zz.md': rubric('name: payments\npaths: [services/**]'),
      'services/payments/a.ts': 'a\n'
    })
    const result = await cli(['validate'], dir)
    expect(result.code).toBe(1)
    expect(result.err).toContain(
      '.github/rubrics/payments.md:4: error: paths: "servces/payments/**" matches no file in this repository'
    )
    expect(result.err).toContain(
      '.github/rubrics/zz.md:1: error: the rubric name "payments" is already that of .github/rubrics/payments.md'
    )
    expect(result.out).toContain('0 of 2 rubrics valid')
    expect(result.err).toContain(
      'note: every rubric is scoped by paths, so a pull request that changes only files none of them matches is judged by none'
    )
  })
})

describe('init --rubrics', () => {
  it('writes an example rubric scoped by paths, which validates, and keeps one that exists', async () => {
    const dir = await repository({ 'src/index.ts': 'export {}\n' })
    const first = await cli(['init', '--rubrics'], dir)
    expect(first.code).toBe(0)
    expect(first.out).toContain('wrote .github/rubrics/example.md')
    const text = await readFile(join(dir, '.github/rubrics/example.md'), 'utf8')
    const parsed = parseRubric({ text, path: 'example.md' })
    expect(parsed.ok && [parsed.value.name, parsed.value.scope]).toEqual([
      'example',
      { paths: ['src/**', '!src/**/*.generated.*'] }
    ])
    execFileSync('git', ['add', '-A'], { cwd: dir })
    expect((await cli(['validate'], dir)).code).toBe(0)

    await writeFile(join(dir, '.github/rubrics/example.md'), rubric('paths: [src/**]'))
    const again = await cli(['init', '--rubrics'], dir)
    expect(again.out).toContain('kept .github/rubrics/example.md as it is')
    expect(await readFile(join(dir, '.github/rubrics/example.md'), 'utf8')).toBe(
      rubric('paths: [src/**]')
    )
  })

  // What a fresh repository needs to run the example: the workflows, as init writes them.
  it.each([
    { flags: [], commit: '3. Commit the four files;' },
    { flags: ['--forks'], commit: '3. Commit the five files' },
    { flags: ['--target'], commit: '3. Commit to the default branch' }
  ])(
    'without the workflows, writes what init $flags writes, the example rubric among them',
    async ({ flags, commit }) => {
      const files = { 'src/index.ts': 'export {}\n', 'package.json': '{}\n' }
      const [plain, both] = [await repository(files), await repository(files)]
      const init = await cli(['init', ...flags], plain)
      const result = await cli(['init', '--rubrics', ...flags], both)
      const wrote = (out: string): string[] =>
        out.split('\n').flatMap(l => (l.startsWith('wrote ') ? [l.slice('wrote '.length)] : []))
      expect(result.code).toBe(0)
      expect(wrote(result.out)).toEqual([
        '.github/rubric.md',
        '.github/rubrics/example.md',
        ...wrote(init.out).slice(1)
      ])
      for (const file of wrote(init.out)) {
        expect(await readFile(join(both, file), 'utf8')).toBe(
          await readFile(join(plain, file), 'utf8')
        )
      }
      expect(result.out).toContain(commit)
      expect(result.out).toContain('\nThen, for the rubrics in .github/rubrics/:\n')
    }
  )

  it('where init wrote the workflows, keeps them as they are, writes the example alone and says so', async () => {
    const dir = await repository({ 'src/index.ts': 'export {}\n' })
    expect((await cli(['init'], dir)).code).toBe(0)
    const workflow = join(dir, '.github/workflows/rubric-council.yml')
    const edited = `${await readFile(workflow, 'utf8')}# edited by the user\n`
    await writeFile(workflow, edited)
    const result = await cli(['init', '--rubrics', '--forks'], dir)
    expect([result.code, result.err]).toEqual([0, ''])
    expect(result.out.split('\n').slice(0, 4)).toEqual([
      'wrote .github/rubrics/example.md',
      'kept .github/workflows/rubric-council.yml as it is: it runs the rubrics in .github/rubrics/ too (--force writes the layout anew)',
      'kept .github/workflows/rubric-council-bot.yml as it is: it runs the rubrics in .github/rubrics/ too (--force writes the layout anew)',
      ''
    ])
    expect(await readFile(workflow, 'utf8')).toBe(edited)
    expect(existsSync(join(dir, '.github/workflows/rubric-council-gates.yml'))).toBe(false)
    expect(result.out).toContain('4. Once merged, make each "rubric-council / <name>" a required')
  })

  it('where another workflow of the layout exists, refuses as init does and writes nothing', async () => {
    const dir = await repository({ '.github/workflows/rubric-council-bot.yml': 'mine\n' })
    const result = await cli(['init', '--rubrics'], dir)
    expect([result.code, result.err]).toEqual([
      1,
      'rubric-council: .github/workflows/rubric-council-bot.yml exists; not overwriting it (use --force)'
    ])
    expect(existsSync(join(dir, '.github/rubrics/example.md'))).toBe(false)
    expect(existsSync(join(dir, '.github/rubric.md'))).toBe(false)
  })

  it('with --force, writes the layout anew as init --force does, and keeps both rubrics', async () => {
    const dir = await repository({
      '.github/rubric.md': rubric('title: Mine'),
      '.github/rubrics/example.md': rubric('paths: [src/**]'),
      '.github/workflows/rubric-council.yml': 'mine\n'
    })
    const result = await cli(['init', '--rubrics', '--force'], dir)
    expect(result.code).toBe(0)
    expect(result.out.split('\n').slice(0, 4)).toEqual([
      'kept .github/rubric.md as it is (init never overwrites a rubric)',
      'kept .github/rubrics/example.md as it is (init never overwrites a rubric)',
      'wrote .github/workflows/rubric-council.yml',
      'wrote .github/workflows/rubric-council-bot.yml'
    ])
    expect(await readFile(join(dir, '.github/workflows/rubric-council.yml'), 'utf8')).not.toBe(
      'mine\n'
    )
    expect(await readFile(join(dir, '.github/rubrics/example.md'), 'utf8')).toBe(
      rubric('paths: [src/**]')
    )
  })

  it('is a usage error with --calibrate, which writes its workflow alone', async () => {
    const dir = await repository({})
    const result = await cli(['init', '--rubrics', '--calibrate'], dir)
    expect([result.code, result.err]).toEqual([
      2,
      'rubric-council: --calibrate writes only the calibration workflow: run it apart from --forks, --target and --rubrics (see rubric-council init --help)'
    ])
  })
})

describe('check with several rubrics', () => {
  const gates = (paths: string, gate: string): string =>
    `---\npaths: [${paths}]\n---\n## Gates\n- \`${gate}\`\n`

  async function branched(change: Record<string, string>): Promise<string> {
    const dir = await repository({
      '.github/rubrics/payments.md': gates(
        "'services/payments/**'",
        'test -f services/payments/ok'
      ),
      '.github/rubrics/docs.md': gates("'docs/**'", 'touch docs-gate-ran'),
      'services/payments/a.ts': 'a\n',
      'docs/a.md': 'a\n'
    })
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
        cwd: dir
      })
    git('commit', '-qm', 'base')
    git('branch', '-M', 'main')
    git('checkout', '-qb', 'change')
    for (const [path, text] of Object.entries(change)) await writeFile(join(dir, path), text)
    git('add', '-A')
    git('commit', '-qm', 'change')
    return dir
  }

  it('checks each rubric that applies to the change, and names the others as not applicable', async () => {
    const dir = await branched({ 'services/payments/a.ts': 'b\n' })
    const failing = await cli(['check', '--base', 'main', '--json', join(dir, 'r.json')], dir)
    expect(failing.code).toBe(1)
    expect(existsSync(join(dir, 'docs-gate-ran'))).toBe(false)
    expect(failing.out).toContain('── rubric-council / payments (.github/rubrics/payments.md)')
    expect(failing.out).toContain(
      '➖ rubric-council / docs: not applicable: no changed file matches paths docs/**'
    )
    const json = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8')) as {
      verdict: string
      rubrics: { name: string; applicable: boolean }[]
    }
    expect([json.verdict, json.rubrics.map(r => [r.name, r.applicable])]).toEqual([
      'FAIL',
      [
        ['payments', true],
        ['docs', false]
      ]
    ])
    await writeFile(join(dir, 'services/payments/ok'), '')
    execFileSync('git', ['add', '-A'], { cwd: dir })
    expect((await cli(['check', '--base', 'main'], dir)).code).toBe(0)
  })

  it('checks one rubric alone with --rubric', async () => {
    const dir = await branched({ 'services/payments/a.ts': 'b\n' })
    const result = await cli(
      ['check', '--base', 'main', '--rubric', '.github/rubrics/docs.md'],
      dir
    )
    expect(result.code).toBe(0)
    expect(result.out).not.toContain('payments')
  })
})
