import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliIo } from '../src/cli/io.js'
import { defaultModels, unknownModel } from '../src/council/members.js'
import { main } from '../src/cli.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'

/**
 * What `rubric-council check` tells a user is true: the file it names holds the full report, the
 * next step names the real reason the judges fell short, and a change that is not there is not
 * judged. The CLI's entry in-process, in a real git repository, with the providers played by the
 * local stand-in over their wire protocols.
 */

const OPENAI_KEY = 'sk-test-truth-openai-0123456789'
const ANTHROPIC_KEY = 'sk-ant-test-truth-refused-0123456789'

let standIn: StandIn
beforeAll(async () => {
  standIn = await startProviderStandIn()
})
afterAll(async () => {
  await standIn.close()
})

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    stdio: 'ignore'
  })
}

function rubric(models: readonly string[]): string {
  return `---
council:
  models: [${models.join(', ')}]
dimensions: false
---
# Ranking

## Gates
- \`touch gate-ran\`

## Criteria
- tested: The ranking is covered by tests
`
}

/** A clone on `feature`, off `main`; with `change`, the feature has a commit of its own. */
function repository(text: string, change = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-truth-'))
  git(dir, 'init', '-q', '-b', 'main')
  mkdirSync(join(dir, '.github'))
  writeFileSync(join(dir, '.github/rubric.md'), text)
  writeFileSync(join(dir, '.gitignore'), 'gate-ran\n')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'base')
  git(dir, 'checkout', '-q', '-b', 'feature')
  if (change) {
    writeFileSync(join(dir, 'rank.ts'), 'export const rank = (xs: number[]) => xs.sort()\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'Add ranking')
  }
  return dir
}

interface Run {
  readonly code: number
  readonly out: string[]
  readonly err: string[]
  /** The requests the providers received during the run. */
  readonly requests: number
}

/** `rubric-council check` in `cwd`; the stand-in answers OpenAI and refuses Anthropic's key. */
async function check(
  cwd: string,
  keys: Record<string, string>,
  args: readonly string[] = [],
  now?: () => number
): Promise<Run> {
  const before = standIn.calls.length
  standIn.setScript(call =>
    call.service === 'anthropic'
      ? {
          status: 401,
          body: {
            type: 'error',
            error: { type: 'authentication_error', message: 'invalid x-api-key' }
          }
        }
      : { json: wireAnswer(call.schema) }
  )
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = {
    stdout: l => out.push(l),
    stderr: l => err.push(l),
    env: {
      PATH: process.env.PATH ?? '',
      OPENAI_BASE_URL: standIn.openaiBaseUrl,
      ANTHROPIC_BASE_URL: standIn.anthropicBaseUrl,
      GOOGLE_GENERATIVE_AI_BASE_URL: standIn.googleBaseUrl,
      ...keys
    },
    cwd,
    ...(now && { now })
  }
  const code = await main(['check', '--base', 'main', ...args], io)
  return { code, out, err, requests: standIn.calls.length - before }
}

/** The lines of a run's stdout (each `io.stdout` call may hold several). */
function lines(run: Run): string[] {
  return run.out.join('\n').split('\n')
}

function nextLine(run: Run): string | undefined {
  return lines(run).find(l => l.startsWith('next: '))
}

describe('check: the full report', () => {
  it('is in the file the last line names, written without running anything again', async () => {
    const dir = repository(rubric(['openai:gpt-5.4-nano', 'anthropic:claude-sonnet-4-6']))
    const run = await check(dir, { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY })
    expect(run.code).toBe(2)
    const last = lines(run).at(-1) ?? ''
    const match = /^Full report: (.+)$/.exec(last)
    expect(match, last).not.toBeNull()
    const file = match?.[1] ?? ''
    // Outside the repository, where nobody commits it by accident.
    expect(file.startsWith(tmpdir())).toBe(true)
    expect(file.startsWith(dir)).toBe(false)
    const report = readFileSync(file, 'utf8')
    expect(report).toMatch(/^### .* Rubric Council: UNCLEAR/)
    expect(report).toContain(
      '**Next:** Only 1 of 2 judges answered (the quorum is 2): the provider refused the key in <code>ANTHROPIC\\_API\\_KEY</code>'
    )
    // Readable by the user alone: the judges' reasons quote the code.
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(lines(run).join('\n')).not.toContain('--markdown -')
  })

  it('is in the file --markdown names, when it names one', async () => {
    const dir = repository(rubric(['openai:gpt-5.4-nano']))
    const run = await check(dir, { OPENAI_API_KEY: OPENAI_KEY }, ['--markdown', 'out.md'])
    expect(run.code).toBe(0)
    expect(lines(run).at(-1)).toBe('Full report: out.md')
    expect(readFileSync(join(dir, 'out.md'), 'utf8')).toMatch(/^### ✅ Rubric Council: PASS/)
  })
})

describe('check: the next step names why the judges fell short', () => {
  it('a key the provider refused (401): which variable holds it', async () => {
    const dir = repository(rubric(['openai:gpt-5.4-nano', 'anthropic:claude-sonnet-4-6']))
    const run = await check(dir, { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY })
    expect(run.code).toBe(2)
    expect(nextLine(run)).toBe(
      'next: Only 1 of 2 judges answered (the quorum is 2): the provider refused the key in `ANTHROPIC_API_KEY` (anthropic:claude-sonnet-4-6). Replace the key in `ANTHROPIC_API_KEY` with a current one allowed to use the model, and run `rubric-council check` again.'
    )
    expect(lines(run).join('\n')).not.toContain(ANTHROPIC_KEY)
  })

  it('a retired model: not asked, with its date and the model to use, before the run and after', async () => {
    const dir = repository(rubric(['openai:gpt-5.4-nano', 'anthropic:claude-sonnet-4-5']))
    const run = await check(
      dir,
      { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: 'sk-ant-k' },
      [],
      () => Date.parse('2026-12-01T12:00:00Z')
    )
    expect(run.code).toBe(2)
    expect(run.requests).toBe(1)
    expect(run.err[0]).toBe(
      '.github/rubric.md:3:33: error: council.models: "anthropic:claude-sonnet-4-5" retired on 2026-11-30; use "anthropic:claude-sonnet-4-6" [retired-model]'
    )
    expect(nextLine(run)).toBe(
      'next: Only 1 of 2 judges answered (the quorum is 2): not asked: "anthropic:claude-sonnet-4-5" retired on 2026-11-30; use "anthropic:claude-sonnet-4-6" (anthropic:claude-sonnet-4-5). The providers rejected the requests themselves: check the model names (`provider:model`) in the rubric or `--models`, then run `rubric-council check` again.'
    )
  })

  it('a retired model named with --models: said before the run, and not asked', async () => {
    const dir = repository(rubric([]).replace('  models: []\n', '  samples: 1\n'))
    const run = await check(
      dir,
      { OPENAI_API_KEY: OPENAI_KEY },
      ['--models', 'openai:gpt-5-mini'],
      () => Date.parse('2026-12-20T12:00:00Z')
    )
    expect(run.requests).toBe(0)
    expect(run.err[0]).toBe(
      'rubric-council: error: --models: "openai:gpt-5-mini" retired on 2026-12-11; use "openai:gpt-6.1-terra"'
    )
  })

  it('1 of 3 judges answered: how many, and why the other two did not', async () => {
    const dir = repository(
      rubric(['openai:gpt-5.4-nano', 'anthropic:claude-sonnet-4-6', 'google:gemini-3.5-flash'])
    )
    const run = await check(dir, { OPENAI_API_KEY: OPENAI_KEY })
    expect(run.code).toBe(2)
    expect(run.requests).toBe(1)
    expect(nextLine(run)).toBe(
      'next: Only 1 of 3 judges answered (the quorum is 2): not asked: ANTHROPIC_API_KEY is not set (anthropic:claude-sonnet-4-6); not asked: GOOGLE_GENERATIVE_AI_API_KEY is not set (google:gemini-3.5-flash). Set the missing keys in your environment, or name only judges whose key you have (`--models` or the rubric’s `council.models`), and run `rubric-council check` again.'
    )
  })

  it('no key at all: says so, and asks nobody', async () => {
    const dir = repository(rubric([]).replace('  models: []\n', '  samples: 1\n'))
    const run = await check(dir, {})
    expect(run.code).toBe(2)
    expect(run.requests).toBe(0)
    expect(nextLine(run)).toBe(
      'next: No provider API key is set, so no judge could be asked: set one in your environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, …) and run `rubric-council check` again.'
    )
  })
})

describe('check with no change from the base', () => {
  it('says so, runs no gate and asks no judge, and exits 2', async () => {
    const dir = repository(rubric(['openai:gpt-5.4-nano']), false)
    const run = await check(dir, { OPENAI_API_KEY: OPENAI_KEY }, ['--json', 'report.json'])
    expect(run.requests).toBe(0)
    expect(run.code).toBe(2)
    expect(run.out).toEqual([])
    expect(run.err).toHaveLength(1)
    expect(run.err[0]).toMatch(
      /^rubric-council: no change from main: HEAD and the working tree are as at their merge base [0-9a-f]{12} \(a new file counts once it is added with git add\); nothing was checked: no gate ran and no judge was asked$/
    )
    expect(existsSync(join(dir, 'gate-ran'))).toBe(false)
    expect(existsSync(join(dir, 'report.json'))).toBe(false)
  })

  it('an edit in the working tree is a change: it is judged', async () => {
    const dir = repository(rubric(['openai:gpt-5.4-nano']), false)
    writeFileSync(join(dir, 'README.md'), '# Ranking\n')
    git(dir, 'add', 'README.md')
    const run = await check(dir, { OPENAI_API_KEY: OPENAI_KEY })
    expect(run.requests).toBe(1)
    expect(lines(run)[0]).toMatch(/^PASS \(exit 0\)/)
  })

  it('a diff that cannot be read is not taken for no change: UNCLEAR, and no judge asked', async () => {
    // A base with no common ancestor: git cannot say what changed, which is not "nothing".
    const dir = repository(rubric(['openai:gpt-5.4-nano']))
    git(dir, 'checkout', '-q', '--orphan', 'elsewhere')
    git(dir, 'commit', '-q', '-m', 'unrelated')
    git(dir, 'checkout', '-q', 'feature')
    const run = await check(dir, { OPENAI_API_KEY: OPENAI_KEY }, ['--base', 'elsewhere'])
    expect(run.requests).toBe(0)
    expect(run.code).toBe(2)
    expect(lines(run)[0]).toMatch(/^UNCLEAR \(exit 2\)/)
    expect(lines(run).join('\n')).toContain('incomplete_coverage: the judges were not asked')
    expect(run.err.join('\n')).not.toContain('no change from')
  })
})

describe('check: code stored in Git LFS', () => {
  it('is not taken for reviewed: the pointer counts against coverage, named in the reports', async () => {
    const dir = repository(rubric(['openai:gpt-5.4-nano']), false)
    mkdirSync(join(dir, 'src'))
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${'ab'.repeat(32)}\nsize 512\n`
    writeFileSync(join(dir, 'src/payload.js'), pointer)
    writeFileSync(join(dir, 'src/app.ts'), "import run from './payload.js'\nrun()\n")
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'Add the payload')
    const run = await check(dir, { OPENAI_API_KEY: OPENAI_KEY }, ['--json', 'report.json'])
    expect(run.code).toBe(2)
    expect(lines(run)[0]).toMatch(/^UNCLEAR \(exit 2\)/)
    expect(lines(run).join('\n')).toContain('incomplete_coverage')
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      coverage: { ratio: number; omitted: unknown[] }
    }
    expect(report.coverage.ratio).toBe(0.5)
    expect(report.coverage.omitted).toEqual([
      {
        path: 'src/payload.js',
        reason: 'lfs',
        detail: 'stored in Git LFS (content not fetched)',
        counts: true
      }
    ])
  })
})

describe('validate: model ids', () => {
  async function validate(cwd: string, ...files: string[]): Promise<Omit<Run, 'requests'>> {
    return validateOn(undefined, cwd, ...files)
  }
  async function validateOn(
    today: string | undefined,
    cwd: string,
    ...files: string[]
  ): Promise<Omit<Run, 'requests'>> {
    const out: string[] = []
    const err: string[] = []
    const io: CliIo = {
      stdout: l => out.push(l),
      stderr: l => err.push(l),
      env: {},
      cwd,
      ...(today !== undefined && { now: () => Date.parse(`${today}T12:00:00Z`) })
    }
    return { code: await main(['validate', ...files], io), out, err }
  }

  /** A rubric naming Sonnet 4.5 directly and through OpenRouter, and a current model. */
  function retiringRubric(): string {
    const dir = mkdtempSync(join(tmpdir(), 'rc-retired-'))
    writeFileSync(
      join(dir, 'rubric.md'),
      [
        '---',
        'council:',
        '  models:',
        '    - openai:gpt-5.4-mini',
        '    - anthropic:claude-sonnet-4-5',
        '    - openrouter:anthropic/claude-sonnet-4.5',
        '---',
        '## Criteria',
        '- tested: The change is tested',
        ''
      ].join('\n')
    )
    return dir
  }

  it('fails on a retired model with its line, the retirement date and the model to use', async () => {
    const result = await validateOn('2026-12-01', retiringRubric(), 'rubric.md')
    expect(result.code).toBe(1)
    expect(result.out).toEqual([])
    expect(result.err).toEqual([
      'rubric.md:5:7: error: council.models: "anthropic:claude-sonnet-4-5" retired on 2026-11-30; use "anthropic:claude-sonnet-4-6" [retired-model]',
      'rubric.md:6:7: error: council.models: "openrouter:anthropic/claude-sonnet-4.5" retired on 2026-11-30; use "openrouter:anthropic/claude-sonnet-4.6" [retired-model]'
    ])
  })

  it('fails on a retired reserve, and warns of the deprecated council.tie_breaks, each with its line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-reserve-'))
    writeFileSync(
      join(dir, 'rubric.md'),
      [
        '---',
        'council:',
        '  models: [openai:gpt-5.4-mini]',
        '  reserve:',
        '    - anthropic:claude-sonnet-4-5',
        '  tie_breaks: 2',
        '---',
        '## Criteria',
        '- tested: The change is tested',
        ''
      ].join('\n')
    )
    const result = await validateOn('2026-12-01', dir, 'rubric.md')
    expect(result.code).toBe(1)
    expect(result.err).toEqual([
      'rubric.md:5:7: error: council.reserve: "anthropic:claude-sonnet-4-5" retired on 2026-11-30; use "anthropic:claude-sonnet-4-6" [retired-model]',
      'rubric.md:6:3: warning: council.tie_breaks is deprecated; write council.max_extra_votes: 2 (extra votes come only from a member or reserve that has not voted yet: docs/verdict.md) [deprecated-key]'
    ])
  })

  it('warns of a model that retires within 30 days, and exits 0', async () => {
    const soon = await validateOn('2026-11-27', retiringRubric(), 'rubric.md')
    expect(soon.code).toBe(0)
    expect(soon.out).toEqual([expect.stringMatching(/^rubric\.md: ok \(/)])
    expect(soon.err[0]).toBe(
      'rubric.md:5:7: warning: council.models: "anthropic:claude-sonnet-4-5" retires on 2026-11-30, in 3 days; use "anthropic:claude-sonnet-4-6" before then [retiring-model]'
    )
    const early = await validateOn('2026-10-30', retiringRubric(), 'rubric.md')
    expect(early).toMatchObject({ code: 0, err: [] })
  })

  it('warns of a misspelt model with its file and line and the model meant, and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-models-'))
    writeFileSync(
      join(dir, 'rubric.md'),
      [
        '---',
        'council:',
        '  models:',
        '    - openai:gpt-5.4-mini',
        '    - anthropic:claude-sonet-4-6',
        '    - ollama:my-own-model',
        '---',
        '## Criteria',
        '- tested: The change is tested',
        ''
      ].join('\n')
    )
    const result = await validate(dir, 'rubric.md')
    expect(result.code).toBe(0)
    expect(result.out).toEqual([expect.stringMatching(/^rubric\.md: ok \(/)])
    expect(result.err).toEqual([
      'rubric.md:5:7: warning: council.models: unknown model "anthropic:claude-sonet-4-6"; did you mean "anthropic:claude-sonnet-4-6"? (a model newer than this version of rubric-council is fine; a misspelt one fails when the judges are asked) [unknown-model]'
    ])
  })

  it('warns of a model it cannot place without suggesting one, and of --models in check', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-models-'))
    writeFileSync(
      join(dir, 'rubric.yml'),
      'council:\n  models: [openai:gpt-9-turbo]\ngates: [make]\n'
    )
    const result = await validate(dir, 'rubric.yml')
    expect(result.code).toBe(0)
    expect(result.err).toEqual([
      'rubric.yml:2:12: warning: council.models: unknown model "openai:gpt-9-turbo" (a model newer than this version of rubric-council is fine; a misspelt one fails when the judges are asked) [unknown-model]'
    ])
    const run = await check(
      repository(rubric([]).replace('  models: []\n', '  samples: 1\n')),
      {
        OPENAI_API_KEY: OPENAI_KEY
      },
      ['--models', 'openrouter:anthropic/claude-sonet-4.6,openai:gpt-5.4-nano']
    )
    expect(run.err[0]).toBe(
      'rubric-council: warning: --models: unknown model "openrouter:anthropic/claude-sonet-4.6"; did you mean "openrouter:anthropic/claude-sonnet-4.6"? (a model newer than this version of rubric-council is fine; a misspelt one fails when the judges are asked)'
    )
  })

  it('knows every model of the default councils', () => {
    const all = { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k', GOOGLE_GENERATIVE_AI_API_KEY: 'k' }
    const members = [...defaultModels(all), ...defaultModels({ OPENROUTER_API_KEY: 'k' })]
    expect(members).toHaveLength(6)
    expect(members.filter(m => unknownModel(m) !== undefined)).toEqual([])
  })
})
