import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CliIo } from '../../src/cli/io.js'
import { main } from '../../src/cli.js'
import type { SessionState } from '../../src/loop/session.js'
import { wireAnswer } from '../helpers/judge-answers.js'
import { startProviderStandIn, type Script, type StandIn } from '../helpers/provider-standin.js'

/**
 * `rubric-council loop` in process, in a real directory: the doer and the gates really run through
 * bash; judges are played by the provider stand-in over the wire.
 */

const KEY = 'sk-test-loop-0123456789abcdef'

let standIn: StandIn
beforeAll(async () => {
  standIn = await startProviderStandIn()
})
afterAll(async () => {
  await standIn.close()
})

interface Run {
  readonly code: number
  readonly out: string[]
  readonly err: string[]
  readonly dir: string
}

async function cli(dir: string, argv: string[], env: Record<string, string> = {}): Promise<Run> {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = {
    stdout: l => out.push(...l.split('\n')),
    stderr: l => err.push(l),
    env: { PATH: process.env.PATH ?? '', HOME: dir, ...env },
    cwd: dir
  }
  const code = await main(argv, io)
  return { code, out, err, dir }
}

function folder(files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-loop-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
    if (path.endsWith('.sh')) chmodSync(join(dir, path), 0o755)
  }
  return dir
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...args], {
    cwd,
    stdio: 'ignore'
  })
}

/** A repository on a feature branch that changes `changed` from main, which holds `base`. */
function repository(
  base: Record<string, string>,
  changed: Record<string, string> = {
    'rank.ts': 'export const rank = (xs: number[]) => [...xs].sort()\n'
  }
): string {
  const dir = folder({ ...base, 'README.md': '# Search\n' })
  git(dir, 'init', '-q', '-b', 'main')
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'base')
  git(dir, 'checkout', '-q', '-b', 'feature')
  for (const [path, text] of Object.entries(changed)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  git(dir, 'add', '-A')
  git(dir, 'commit', '-q', '-m', 'Add ranking')
  return dir
}

const JUDGED = `---
council:
  models: [openai:gpt-5.4-nano]
dimensions: false
---
# Ranking

## Criteria
- tested: The ranking is covered by tests
`

function judges(script: Script): Record<string, string> {
  standIn.setScript(script)
  return { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: standIn.openaiBaseUrl }
}

function sessions(dir: string): string[] {
  return readdirSync(join(dir, '.rubric-council/sessions'))
}

function state(dir: string): SessionState {
  const [id] = sessions(dir)
  return JSON.parse(
    readFileSync(join(dir, '.rubric-council/sessions', id ?? '', 'state.json'), 'utf8')
  ) as SessionState
}

/** Creates done.txt only once it has been handed feedback: the second iteration. */
const FIX = `#!/bin/bash
echo "iteration $RUBRIC_COUNCIL_ITERATION feedback \${RUBRIC_COUNCIL_FEEDBACK:-none}" >> doer.log
if [ -n "$RUBRIC_COUNCIL_FEEDBACK" ]; then cp "$RUBRIC_COUNCIL_FEEDBACK" seen-feedback.md; touch done.txt; fi
`

describe('rubric-council loop', () => {
  it('ACCEPTs at iteration 2 when the doer fixes the gate once handed the feedback', async () => {
    const run = await cli(folder({ 'fix.sh': FIX }), [
      'loop',
      '--doer',
      './fix.sh',
      '--checker',
      'test -f done.txt'
    ])
    expect(run.code).toBe(0)
    expect(run.out.slice(0, 2)).toEqual([
      'iter 1  check  FAIL  gates:0/1',
      'iter 2  check  PASS  gates:1/1'
    ])
    const saved = state(run.dir)
    expect(run.out.at(-1)).toBe(`ACCEPT at iteration 2 of 3 (session ${saved.session})`)
    // The expanded detail of the last check.
    expect(run.out).toContain('gates: ✓ 1/1 · test -f done.txt')
    expect(saved.outcome).toBe('accepted')
    expect(saved.max_iterations).toBe(3)
    expect(saved.history.map(h => [h.iteration, h.verdict, h.decision])).toEqual([
      [1, 'FAIL', 'RETRY'],
      [2, 'PASS', 'ACCEPT']
    ])
    expect(saved.history.map(h => h.gates.map(g => [g.command, g.verdict]))).toEqual([
      [['test -f done.txt', 'fail']],
      [['test -f done.txt', 'pass']]
    ])
    // The sugar became the session's rubric file, which the loop read.
    expect(saved.rubric_path).toBe(`.rubric-council/sessions/${saved.session}/rubric.md`)
    expect(saved.rubric_source).toBe('session')
    expect(readFileSync(join(run.dir, saved.rubric_path), 'utf8')).toContain(
      '## Gates\n- `test -f done.txt`'
    )
    // The doer got the feedback of iteration 1 in iteration 2, and none before.
    const feedback = join(run.dir, '.rubric-council/sessions', saved.session, 'feedback-1.md')
    expect(readFileSync(join(run.dir, 'doer.log'), 'utf8')).toBe(
      `iteration 1 feedback none\niteration 2 feedback ${feedback}\n`
    )
    const seen = readFileSync(join(run.dir, 'seen-feedback.md'), 'utf8')
    expect(seen).toContain('Rubric Council: FAIL at iteration 1')
    expect(seen).toContain('1 of 1 gate did not pass: "test -f done.txt" (exit 1)')
    expect(saved.history[0]?.feedback).toBe(seen)
    // The sessions are never committed by accident.
    expect(readFileSync(join(run.dir, '.rubric-council/.gitignore'), 'utf8')).toBe('*\n')
  })

  it('tells the judges of iteration 2 the verdict and feedback of iteration 1', async () => {
    const dir = repository({ '.github/rubric.md': JUDGED })
    const before = standIn.calls.length
    const env = judges((call, index) => ({
      json: wireAnswer(call.schema, { fail: index === before ? ['tested'] : [] })
    }))
    const run = await cli(dir, ['loop', '--doer', 'true', '--base', 'main'], env)
    expect(run.code).toBe(0)
    expect(run.out.slice(0, 2)).toEqual([
      'iter 1  check  FAIL  0/1 must',
      'iter 2  check  PASS  1/1 must'
    ])
    const [first, second] = standIn.calls.slice(before).map(c => c.text)
    expect(first).toContain('This is iteration 1.')
    expect(first).not.toContain('Prior iterations')
    expect(second).toContain('This is iteration 2.')
    const hash = state(dir).history[0]?.rubric_hash ?? ''
    expect(hash).toMatch(/^[0-9a-f]{12}$/)
    expect(second).toContain(
      `- Iteration 1: FAIL — must 0/1 · score 0 · judges 1/1 · rubric ${hash}\n` +
        '  Feedback: must-have criterion failed by a majority of judges: tested'
    )
  })

  it('reads the rubric again each iteration: an edit between iterations changes the hash', async () => {
    // In iteration 2 the doer edits the session's rubric (a new gate) and meets it.
    const doer = `if [ "$RUBRIC_COUNCIL_ITERATION" = 2 ]; then
      sed -i 's/done.txt/ready.txt/' ".rubric-council/sessions/$RUBRIC_COUNCIL_SESSION/rubric.md"
      touch ready.txt
    fi`
    const run = await cli(folder(), ['loop', '--doer', doer, '--checker', 'test -f done.txt'])
    expect(run.code).toBe(0)
    const [one, two] = state(run.dir).history
    expect(one?.gates.map(g => g.command)).toEqual(['test -f done.txt'])
    expect(two?.gates.map(g => g.command)).toEqual(['test -f ready.txt'])
    expect(one?.rubric_hash).toMatch(/^[0-9a-f]{12}$/)
    expect(two?.rubric_hash).toMatch(/^[0-9a-f]{12}$/)
    expect(two?.rubric_hash).not.toBe(one?.rubric_hash)
  })

  it('stops at once when the judges recommend TERMINATE', async () => {
    const dir = repository({ '.github/rubric.md': JUDGED })
    const before = standIn.calls.length
    const env = judges(call => ({
      json: wireAnswer(call.schema, { fail: ['tested'], verdict: 'TERMINATE' })
    }))
    const run = await cli(dir, ['loop', '--doer', 'true', '--max-iterations', '3'], env)
    expect(run.code).toBe(1)
    expect(standIn.calls.length - before).toBe(1)
    const saved = state(dir)
    expect(saved.outcome).toBe('terminated')
    expect(saved.history.map(h => [h.verdict, h.decision])).toEqual([['FAIL', 'TERMINATE']])
    expect(run.out.at(-1)).toMatch(
      /^TERMINATE at iteration 1 of 3: the judges recommend stopping \(session .+\); feedback: .+feedback-1\.md$/
    )
  })

  it('records a doer that exits non-zero, and checks what it did all the same', async () => {
    const run = await cli(folder(), [
      'loop',
      '--doer',
      'echo half > part.txt; echo "gave up" >&2; exit 3',
      '--checker',
      'test -f part.txt'
    ])
    expect(run.code).toBe(0)
    const [only] = state(run.dir).history
    expect(only?.doer).toEqual({
      command: 'echo half > part.txt; echo "gave up" >&2; exit 3',
      verdict: 'fail',
      exit_code: 3,
      detail: null,
      output: 'gave up\n'
    })
    expect(only?.verdict).toBe('PASS')
    expect(run.err).toContain('rubric-council: the doer exited 3; the check runs all the same')
  })

  it('runs the doer as bash -c does: a command that fails does not stop the ones after it', async () => {
    const run = await cli(folder(), [
      'loop',
      '--doer',
      'false; echo done > done.txt',
      '--checker',
      'test -f done.txt'
    ])
    expect(run.code).toBe(0)
    expect(state(run.dir).history.map(h => h.verdict)).toEqual(['PASS'])
  })

  it('gives up with exit 1 after --max-iterations without ACCEPT, naming the last feedback', async () => {
    const run = await cli(folder(), [
      'loop',
      '--doer',
      'true',
      '--checker',
      'false',
      '--max-iterations',
      '2',
      '--json',
      'last.json'
    ])
    expect(run.code).toBe(1)
    const saved = state(run.dir)
    expect(saved.outcome).toBe('exhausted')
    expect(saved.history).toHaveLength(2)
    expect(run.out.at(-1)).toBe(
      `no ACCEPT after 2 iterations (session ${saved.session}); the last feedback: ${join(run.dir, '.rubric-council/sessions', saved.session, 'feedback-2.md')}`
    )
    const report = JSON.parse(readFileSync(join(run.dir, 'last.json'), 'utf8')) as {
      verdict: string
      iteration: number
      history: { iteration: number; verdict: string }[]
    }
    expect(report.verdict).toBe('FAIL')
    expect(report.iteration).toBe(2)
    expect(report.history.map(h => [h.iteration, h.verdict])).toEqual([
      [1, 'FAIL'],
      [2, 'FAIL']
    ])
  })

  it('refuses what is wrong before the doer runs', async () => {
    const dir = folder()
    const cases: [string[], string][] = [
      [['loop'], 'rubric-council: loop needs the command that does the work: --doer COMMAND'],
      [
        ['loop', '--doer', 'touch ran', '--checker', 'true', '--rubric', 'r.md'],
        'rubric-council: --rubric and --checker both name the rubric: pass one of them'
      ],
      [
        ['loop', '--doer', 'touch ran', '--checker', 'true', '--max-iterations', '0'],
        'rubric-council: --max-iterations "0": a whole number from 1 to 50'
      ],
      [
        ['loop', '--doer', 'touch ran', '--rubric', 'missing.md'],
        'rubric-council: missing.md: error: rubric file not found [missing-file]'
      ]
    ]
    for (const [argv, line] of cases) {
      const run = await cli(dir, argv)
      expect(run.code, argv.join(' ')).toBe(2)
      expect(run.err).toEqual([line])
    }
    expect(existsSync(join(dir, 'ran'))).toBe(false)
    expect(existsSync(join(dir, '.rubric-council'))).toBe(false)
  })
})

const scoped = (name: string, paths: string, body: string): string =>
  `---\nname: ${name}\npaths: ['${paths}']\ncouncil:\n  models: [openai:gpt-5.4-nano]\ndimensions: false\n---\n# ${name}\n\n${body}`

describe('rubric-council loop in a repository of several rubrics', () => {
  it('checks every rubric the change touches, as the required checks will, and ACCEPTs when all pass', async () => {
    const dir = repository(
      {
        '.github/rubrics/payments.md': scoped(
          'payments',
          'services/payments/**',
          '## Gates\n- `test -f services/payments/fixed.txt`\n'
        ),
        // Never applies: its gate would fail every check it ran in.
        '.github/rubrics/web.md': scoped('web', 'web/**', '## Gates\n- `false`\n'),
        'fix.sh': `#!/bin/bash\nif [ -n "$RUBRIC_COUNCIL_FEEDBACK" ]; then cp "$RUBRIC_COUNCIL_FEEDBACK" seen-feedback.md; touch services/payments/fixed.txt; fi\n`
      },
      { 'services/payments/pay.ts': 'export const pay = 1\n' }
    )
    const run = await cli(dir, [
      'loop',
      '--doer',
      './fix.sh',
      '--base',
      'main',
      '--json',
      'last.json'
    ])
    expect(run.code).toBe(0)
    expect(run.out.slice(0, 2)).toEqual([
      'iter 1  check  FAIL  payments FAIL  gates:0/1',
      'iter 2  check  PASS  payments PASS  gates:1/1'
    ])
    const saved = state(dir)
    expect(saved.rubric_path).toBe('.github/rubrics')
    expect(saved.history.map(h => [h.verdict, h.decision])).toEqual([
      ['FAIL', 'RETRY'],
      ['PASS', 'ACCEPT']
    ])
    expect(
      saved.history[0]?.rubrics?.map(r => [r.check_run, r.path, r.verdict, r.decision])
    ).toEqual([
      ['rubric-council / payments', '.github/rubrics/payments.md', 'FAIL', 'RETRY'],
      ['rubric-council / web', '.github/rubrics/web.md', 'NOT_APPLICABLE', null]
    ])
    expect(saved.history[0]?.reasons).toEqual([
      'rubric-council / payments: 1 of 1 gate did not pass: "test -f services/payments/fixed.txt" (exit 1)'
    ])
    // The doer was told which rubric failed and why, and which did not apply.
    const seen = readFileSync(join(dir, 'seen-feedback.md'), 'utf8')
    expect(seen).toContain('# ❌ Rubric Council: FAIL at iteration 1')
    expect(seen).toContain('- ❌ rubric-council / payments (.github/rubrics/payments.md): FAIL')
    expect(seen).toContain('- ➖ rubric-council / web (.github/rubrics/web.md): not applicable')
    expect(seen).toContain('# ❌ rubric-council / payments: FAIL at iteration 1')
    expect(seen).toContain('test -f services/payments/fixed.txt')
    // The last check, expanded: each rubric under its check run's name.
    expect(run.out).toContain('── rubric-council / payments (.github/rubrics/payments.md)')
    expect(run.out.some(l => l.startsWith('➖ rubric-council / web: not applicable'))).toBe(true)
    expect(run.out.at(-1)).toBe(`ACCEPT at iteration 2 of 3 (session ${saved.session})`)
    // The JSON report is check's form of several rubrics, each with its own iterations.
    const report = JSON.parse(readFileSync(join(dir, 'last.json'), 'utf8')) as {
      verdict: string
      rubrics: { name: string; applicable: boolean; report?: { history: { verdict: string }[] } }[]
    }
    expect(report.verdict).toBe('PASS')
    expect(
      report.rubrics.map(r => [r.name, r.applicable, r.report?.history.map(h => h.verdict)])
    ).toEqual([
      ['payments', true, ['FAIL', 'PASS']],
      ['web', false, undefined]
    ])
  })

  it("tells each rubric's judges their own earlier iterations, and RETRYs while any rubric fails", async () => {
    const dir = repository(
      {
        '.github/rubrics/payments.md': scoped(
          'payments',
          'services/payments/**',
          '## Criteria\n- tested: The payment is covered by tests\n'
        ),
        '.github/rubrics/docs.md': scoped(
          'docs',
          'docs/**',
          '## Criteria\n- clear: The docs read clearly\n'
        )
      },
      { 'services/payments/pay.ts': 'export const pay = 1\n', 'docs/pay.md': '# Pay\n' }
    )
    const before = standIn.calls.length
    // The payments judge fails its criterion on iteration 1 only; the docs judge always passes.
    const env = judges(call => ({
      json: wireAnswer(call.schema, {
        fail:
          call.text.includes('# Rubric: payments') && call.text.includes('This is iteration 1.')
            ? ['tested']
            : []
      })
    }))
    const run = await cli(dir, ['loop', '--doer', 'true', '--base', 'main'], env)
    expect(run.code).toBe(0)
    expect(run.out.slice(0, 2)).toEqual([
      'iter 1  check  FAIL  payments FAIL 0/1 must, docs PASS 1/1 must',
      'iter 2  check  PASS  docs PASS 1/1 must, payments PASS 1/1 must'
    ])
    const [one] = state(dir).history
    const hash = (name: string): string =>
      one?.rubrics?.find(r => r.name === name)?.rubric_hash ?? 'none'
    const second = (name: string): string =>
      standIn.calls
        .slice(before)
        .map(c => c.text)
        .find(t => t.includes(`# Rubric: ${name}`) && t.includes('This is iteration 2.')) ?? ''
    expect(second('payments')).toContain(
      `- Iteration 1: FAIL — must 0/1 · score 0 · judges 1/1 · rubric ${hash('payments')}`
    )
    expect(second('payments')).not.toContain(hash('docs'))
    expect(second('docs')).toContain(`- Iteration 1: PASS — must 1/1`)
    expect(second('docs')).toContain(`rubric ${hash('docs')}`)
    expect(second('docs')).not.toContain(hash('payments'))
  })

  it('stops rather than ACCEPT when the doer removes the rubrics it is checked by', async () => {
    const dir = repository(
      {
        '.github/rubrics/payments.md': scoped(
          'payments',
          'services/payments/**',
          '## Gates\n- `false`\n'
        )
      },
      { 'services/payments/pay.ts': 'export const pay = 1\n' }
    )
    const run = await cli(dir, ['loop', '--doer', 'rm -rf .github/rubrics', '--base', 'main'])
    expect(run.code).toBe(2)
    expect(run.err).toContain(
      'rubric-council: the session checks every rubric of the repository, and .github/rubrics/ no longer holds one; start the loop again, or pass --rubric FILE'
    )
    expect(state(dir).outcome).toBe('stopped')
    expect(state(dir).history).toEqual([])
  })
})

describe('the loop against its own doer', () => {
  it('decides from its own check: a doer that forges the state and feedback cannot make it ACCEPT', async () => {
    // The doer writes an ACCEPT into the session's state and feedback, and fixes nothing.
    const doer = `s=".rubric-council/sessions/$RUBRIC_COUNCIL_SESSION"
      echo '{"outcome":"accepted"}' > "$s/state.json"
      echo 'PASS' > "$s/feedback-1.md"`
    const run = await cli(folder(), [
      'loop',
      '--doer',
      doer,
      '--checker',
      'test -f done.txt',
      '--max-iterations',
      '2'
    ])
    expect(run.code).toBe(1)
    const saved = state(run.dir)
    expect(saved.outcome).toBe('exhausted')
    expect(saved.history.map(h => h.verdict)).toEqual(['FAIL', 'FAIL'])
  })

  it('masks secrets the doer or a gate prints, in the state and the feedback', async () => {
    const secret = 'tok-0123456789-do-not-leak'
    // The gates run without credentials; the doer (the user's own command) has them, and leaks one.
    const run = await cli(
      folder(),
      [
        'loop',
        '--doer',
        'echo "doer sees $DEPLOY_TOKEN"; echo "$DEPLOY_TOKEN" > leak.txt',
        '--checker',
        'cat leak.txt; false',
        '--max-iterations',
        '1'
      ],
      { DEPLOY_TOKEN: secret }
    )
    expect(run.code).toBe(1)
    const session = join(run.dir, '.rubric-council/sessions', state(run.dir).session)
    const stateText = readFileSync(join(session, 'state.json'), 'utf8')
    const feedback = readFileSync(join(session, 'feedback-1.md'), 'utf8')
    expect(stateText).toContain('doer sees ***')
    expect(feedback).toContain('***')
    for (const text of [stateText, feedback, run.out.join('\n'), run.err.join('\n')]) {
      expect(text).not.toContain(secret)
    }
  })
})

describe('rubric-council sessions and rubric', () => {
  it('lists the sessions with their last check, and opens a session’s rubric in $EDITOR', async () => {
    const dir = folder({ 'fix.sh': FIX })
    expect((await cli(dir, ['sessions'])).out).toEqual([
      'no loop sessions in .rubric-council/sessions (rubric-council loop starts one)'
    ])
    await cli(dir, ['loop', '--doer', './fix.sh', '--checker', 'test -f done.txt'])
    const { session, rubric_path } = state(dir)
    expect((await cli(dir, ['sessions'])).out).toEqual([
      `${session}  accepted  iter 2  check  PASS  gates:1/1  rubric ${rubric_path}`
    ])
    // The editor is a script that records what it was asked to open.
    const editor = join(dir, 'editor.sh')
    writeFileSync(editor, `#!/bin/sh\necho "$1" > "${join(dir, 'opened')}"\n`)
    chmodSync(editor, 0o755)
    const opened = await cli(dir, ['rubric', session], { EDITOR: editor })
    expect(opened.code).toBe(0)
    expect(readFileSync(join(dir, 'opened'), 'utf8')).toBe(`${join(dir, rubric_path)}\n`)
  })

  it('refuses a session id that would leave .rubric-council/sessions/', async () => {
    const dir = folder()
    const editor = join(dir, 'editor.sh')
    writeFileSync(editor, `#!/bin/sh\ntouch "${join(dir, 'opened')}"\n`)
    chmodSync(editor, 0o755)
    for (const id of ['../../x', '..', '/etc', 'a/b']) {
      const run = await cli(dir, ['rubric', id], { EDITOR: editor })
      expect(run.code, id).toBe(2)
      expect(run.err[0], id).toContain(`"${id}" is not a session id`)
    }
    expect(existsSync(join(dir, 'opened'))).toBe(false)
  })
})
