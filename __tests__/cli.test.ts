import { execFile } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { PROBLEM_MATCHER } from '../src/publish/problem-matcher.js'
import type { CliIo } from '../src/cli/io.js'
import { main } from '../src/cli.js'
import { VERSION } from '../src/version.js'

const ROOT = join(import.meta.dirname, '..')

async function cli(
  argv: string[],
  env: Record<string, string> = {}
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = { stdout: l => out.push(l), stderr: l => err.push(l), env, cwd: ROOT }
  const code = await main(argv, io)
  return { code, out, err }
}

/** Runs the bundled CLI the way the README tells people to, from the clone. */
async function bundled(
  args: string[],
  cwd = ROOT
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = promisify(execFile)
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(ROOT, 'bin/rubric-council.js'), ...args],
      {
        cwd,
        env: { PATH: process.env.PATH ?? '' }
      }
    )
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

describe('rubric-council validate (bundled, as the README runs it)', () => {
  it('accepts every example rubric', async () => {
    // What the shell makes of `examples/*`: the rubrics, and the folders of example workflows and
    // of the agent's hook.
    const entries = readdirSync(join(ROOT, 'examples'))
      .sort()
      .map(f => `examples/${f}`)
    const folders = ['examples/agent', 'examples/workflows']
    const rubrics = entries.filter(e => !folders.includes(e))
    const result = await bundled(['validate', ...entries])
    expect(result.stderr).toBe(folders.map(f => `${f}: a folder, not a rubric; skipped\n`).join(''))
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`${rubrics.length} of ${rubrics.length} rubrics valid`)
  })

  it.each([
    [
      'overlap',
      'overlap.md:8:9: error: criterion "relevance": score_ranges [4,6] and [5,10] overlap [score-range-overlap]'
    ],
    [
      'bounds',
      'bounds.md:7:24: error: criterion "relevance": score_range [6,12] is out of bounds: a range is two whole numbers within 0–10 [score-range-bounds]'
    ],
    [
      'coverage',
      'coverage.md:8:5: error: criterion "speed": score_ranges leave 5–6 uncovered; coverage must include every score 0–10 [score-range-coverage]'
    ]
  ])('exits 1 on %s, naming the line and the rule', async (name, message) => {
    const result = await bundled(['validate', `__tests__/fixtures/${name}.md`])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe('')
    expect(result.stderr).toBe(`__tests__/fixtures/${message}\n`)
    expect(result.stderr).toContain(name)
  })

  it('names the line where an unclosed { opens, quoting it, not the lines the parser reached', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rc-yaml-'))
    const rubric = [
      '---',
      'title: Payments',
      'blocking: any',
      'thresholds: { pass: 0.85, fail: 0.7',
      '# stricter than the default',
      'gates:',
      '  timeout: 900',
      '---',
      '## Criteria',
      '- tested: The change is tested',
      ''
    ]
    writeFileSync(join(dir, 'rubric.md'), rubric.join('\n'))
    expect(await bundled(['validate', 'rubric.md'], dir)).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'rubric.md:4:13: error: invalid YAML: the { that starts a mapping here is never closed with }: ' +
        '"thresholds: { pass: 0.85, fail: 0.7"; add the } after the mapping\'s last item ' +
        '(lines inside { … } are indented deeper than this one) [yaml-syntax]\n'
    })
  })
})

describe('rubric-council check (bundled)', () => {
  it('exits 0 for --checker "true", 1 for "false", printing the verdict', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'rc-check-'))
    const pass = await bundled(['check', '--checker', 'true'], repo)
    expect(pass.code).toBe(0)
    expect(pass.stdout.split('\n')[0]).toBe('PASS (exit 0) · gates 1/1')
    // The full report is in the file the last line names, outside the repository.
    const file = /^Full report: (.+)$/.exec(pass.stdout.trimEnd().split('\n').at(-1) ?? '')?.[1]
    expect(file?.startsWith(repo)).toBe(false)
    expect(readFileSync(file ?? '', 'utf8')).toMatch(/^### ✅ Rubric Council: PASS/)
    const fail = await bundled(['check', '--checker', 'false'], repo)
    expect(fail.code).toBe(1)
    expect(fail.stdout).toContain('gate_failed: 1 of 1 gate did not pass: "false" (exit 1)')
    // Gate output goes to stderr, so stdout carries only the report.
    expect(fail.stderr).toContain('▸ false')
  })

  it('exits 2 on an invalid rubric, with the validation messages', async () => {
    const result = await bundled(['check', '--rubric', '__tests__/fixtures/overlap.md'])
    expect(result.code).toBe(2)
    expect(result.stdout).toContain('UNCLEAR (exit 2)')
    expect(result.stdout).toContain(
      'invalid_rubric: the rubric has 1 problem; fix it and run again'
    )
    expect(result.stdout).toContain(
      '__tests__/fixtures/overlap.md:8:9: error: criterion "relevance": score_ranges [4,6] and [5,10] overlap [score-range-overlap]'
    )
  })

  it('writes the JSON and Markdown reports, and prints Markdown with --markdown -', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'rc-check-'))
    const result = await bundled(
      [
        'check',
        '--checker',
        'echo hello',
        '--json',
        'out/../report.json',
        '--markdown',
        'report.md'
      ],
      repo
    )
    expect(result.code).toBe(0)
    // The terminal view says where the full report went.
    expect(result.stdout.trimEnd().split('\n').at(-1)).toBe('Full report: report.md')
    const report = JSON.parse(readFileSync(join(repo, 'report.json'), 'utf8')) as {
      verdict: string
      gates: { output: { head: string } }[]
    }
    expect([report.verdict, report.gates[0]?.output.head]).toEqual(['PASS', 'hello\n'])
    expect(readFileSync(join(repo, 'report.md'), 'utf8')).toMatch(/^### ✅ Rubric Council: PASS/)
    const printed = await bundled(['check', '--checker', 'true', '--markdown', '-'], repo)
    expect(printed.stdout).toMatch(/^### ✅ Rubric Council: PASS/)
  })

  it('prints what a gate wrote without letting it command the terminal', async () => {
    // A full reset (ESC c) and cursor-up (ESC M) are not the colour codes excerpts drop: printed
    // raw, they would wipe or overwrite the FAIL above them.
    const repo = await mkdtemp(join(tmpdir(), 'rc-check-'))
    const gate = "printf 'before\\033cPASS\\033Mafter\\233J'; false"
    for (const argv of [
      ['check', '--checker', gate, '--markdown', '-'],
      ['check', '--checker', gate, '--markdown', 'report.md']
    ]) {
      const printed = await bundled(argv, repo)
      expect(printed.code).toBe(1)
      // eslint-disable-next-line no-control-regex -- control characters are what this checks
      expect(printed.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
    }
    expect((await bundled(['check', '--checker', gate, '--markdown', '-'], repo)).stdout).toContain(
      'before␛cPASS␛Mafter'
    )
  })

  it('refuses to run the judges outside a git repository, in one line', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'rc-check-'))
    const result = await bundled(['check', '--checker', 'agent: The change is tested'], repo)
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `rubric-council: not a git repository: ${repo} (the judges read the diff; run check in a clone)\n`
    })
  })

  it('prints the verdict, then one line, when the report cannot be written after all', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'rc-check-'))
    // The gate takes the report's place once the preconditions have passed.
    const result = await bundled(
      ['check', '--checker', 'mkdir report.json', '--json', 'report.json'],
      repo
    )
    expect(result.code).toBe(2)
    expect(result.stdout.split('\n')[0]).toBe('PASS (exit 0) · gates 1/1')
    expect(result.stderr.split('\n').filter(l => l.startsWith('rubric-council:'))).toEqual([
      'rubric-council: cannot write the JSON report to report.json: it is a folder'
    ])
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /)
  })

  it('init: a file where a folder must go is one line naming it, no stack', async () => {
    const repo = await mkdtemp(join(tmpdir(), 'rc-init-'))
    writeFileSync(join(repo, '.github'), '')
    expect(await bundled(['init'], repo)).toEqual({
      code: 2,
      stdout: '',
      stderr: `rubric-council: ${join(repo, '.github')}: a file is there, where a folder is needed\n`
    })
  })

  it('refuses check options on other commands and stray arguments', async () => {
    expect((await cli(['validate', '--json', 'x.json'])).err[0]).toBe(
      'rubric-council: --json belongs to the check command (see rubric-council validate --help)'
    )
    expect((await cli(['check', 'rubric.md'])).err[0]).toBe(
      'rubric-council: check takes no arguments (got "rubric.md"); use --rubric FILE (see rubric-council check --help)'
    )
  })
})

describe('rubric-council validate', () => {
  it('validates .github/rubric.md when no file is named, and reports it missing', async () => {
    const { code, err } = await cli(['validate'], {})
    // This repository's own rubric is the default; it must exist and be valid.
    expect({ code, err }).toEqual({ code: 0, err: [] })
    const elsewhere = await mkdtemp(join(tmpdir(), 'rc-cli-'))
    const missing: string[] = []
    const exit = await main(['validate'], {
      stdout: () => undefined,
      stderr: l => missing.push(l),
      env: {},
      cwd: elsewhere
    })
    expect(exit).toBe(1)
    expect(missing).toEqual(['.github/rubric.md: error: rubric file not found [missing-file]'])
  })

  it('checks every file and exits 1 if any is invalid', async () => {
    const { code, out, err } = await cli([
      'validate',
      'examples/gates-only.yml',
      '__tests__/fixtures/coverage.md'
    ])
    expect(code).toBe(1)
    expect(out[0]).toMatch(
      /^examples\/gates-only\.yml: ok \(3 gates, 0 must-have, 0 nice-to-have, 0 dimensions, hash [0-9a-f]{12}\)$/
    )
    expect(out.at(-1)).toBe('1 of 2 rubrics valid')
    expect(err).toHaveLength(1)
  })

  it('registers a problem matcher in GitHub Actions whose pattern reads its own lines', async () => {
    const runnerTemp = await mkdtemp(join(tmpdir(), 'rc-runner-'))
    const { out, err } = await cli(['validate', '__tests__/fixtures/overlap.md', 'missing.md'], {
      GITHUB_ACTIONS: 'true',
      RUNNER_TEMP: runnerTemp
    })
    const matcherPath = join(runnerTemp, 'rubric-council-problem-matcher.json')
    expect(out[0]).toBe(`::add-matcher::${matcherPath}`)
    expect(out.at(-1)).toBe('::remove-matcher owner=rubric-council::')
    const matcher = JSON.parse(readFileSync(matcherPath, 'utf8')) as typeof PROBLEM_MATCHER
    const pattern = matcher.problemMatcher[0].pattern[0]
    const fields = err.map(line => {
      const m = new RegExp(pattern.regexp).exec(line)
      return (
        m && [
          m[pattern.file],
          m[pattern.line],
          m[pattern.column],
          m[pattern.severity],
          m[pattern.code]
        ]
      )
    })
    expect(fields).toEqual([
      ['__tests__/fixtures/overlap.md', '8', '9', 'error', 'score-range-overlap'],
      ['missing.md', undefined, undefined, 'error', 'missing-file']
    ])
  })
})

describe('rubric-council', () => {
  it('prints help and version, and exits 2 on a usage error', async () => {
    const help = (await cli(['--help'])).out.join('\n')
    expect(help).toContain('validate    Check rubric files')
    expect(help).toContain('calibrate   Measure how far the council’s verdicts can be trusted')
    expect(await cli(['--version'])).toEqual({ code: 0, out: [VERSION], err: [] })
    const unknown = await cli(['frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.err[0]).toBe(
      'rubric-council: unknown command "frobnicate" (see rubric-council --help)'
    )
    expect((await cli(['validate', '--nope'])).code).toBe(2)
    expect((await cli([])).code).toBe(2)
  })

  it('reports the version of package.json', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
    expect(VERSION).toBe(pkg.version)
  })
})
