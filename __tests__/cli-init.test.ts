import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { Evaluator, Lexer, Parser, data } from '@actions/expressions'
import { truthy } from '@actions/expressions/result'
import { parse as parseYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import type { CliIo } from '../src/cli/io.js'
import { detectSetup } from '../src/init/setup.js'
import {
  BOT_WORKFLOW_FILE,
  BOT_WORKFLOW_NAME,
  botWorkflow,
  forksWorkflows,
  GATES_WORKFLOW_FILE,
  GATES_WORKFLOW_NAME,
  RUBRIC_FILE,
  splitWorkflow,
  targetWorkflow,
  WORKFLOW_FILE
} from '../src/init/workflows.js'
import { main } from '../src/cli.js'
import { initCommand } from '../src/cli/init.js'
import { actionlint } from './helpers/actionlint.js'
import { parse } from './helpers/rubric.js'
import { layoutViolations } from './helpers/workflow-layout.js'
import { readSetupCommands } from '../src/gates/setup.js'
import { VERSION } from '../src/version.js'

/** The commit of this checkout: init, run from it, pins the action to it. */
const HEAD = execFileSync('git', ['-C', join(import.meta.dirname, '..'), 'rev-parse', 'HEAD'], {
  encoding: 'utf8'
}).trim()
const PIN = { commit: HEAD, version: VERSION }
const ACTION = `rubric-council/rubric-council@${HEAD}`
const GATES_ACTION = `rubric-council/rubric-council/gates@${HEAD}`
/** The lines as written, with the version comment. */
const ACTION_LINE = `${ACTION} # v${VERSION}`
const GATES_LINE = `${GATES_ACTION} # v${VERSION}`
async function cli(
  argv: string[],
  cwd: string
): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = []
  const err: string[] = []
  const io: CliIo = { stdout: l => out.push(l), stderr: l => err.push(l), env: {}, cwd }
  return { code: await main(argv, io), out, err }
}

/** A fresh directory holding `files`. */
function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'rc-init-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

interface Step {
  readonly id?: string
  readonly uses?: string
  readonly run?: string
  readonly if?: string
  readonly with?: Record<string, unknown>
  readonly env?: Record<string, string>
}
interface Job {
  readonly needs?: string
  readonly if?: string
  readonly permissions?: Record<string, string>
  readonly steps: Step[]
}
interface Workflow {
  readonly name: string
  readonly on: Record<string, Record<string, unknown>>
  readonly concurrency?: { group: string; 'cancel-in-progress': boolean }
  readonly permissions: Record<string, string>
  readonly jobs: Record<string, Job>
}

function read(dir: string, file: string): string {
  return readFileSync(join(dir, file), 'utf8')
}

function workflow(text: string): Workflow {
  return parseYaml(text) as Workflow
}

/**
 * A value of a workflow as GitHub evaluates it (with GitHub's own expression engine): `${{ }}`
 * replaced, or a bare `if:` condition, with the `github` and `inputs` contexts given.
 */
function evaluated(
  value: string | undefined,
  contexts: {
    github: Record<string, unknown>
    inputs?: Record<string, string>
    secrets?: Record<string, string>
  },
  options: { readonly condition?: boolean } = {}
): unknown {
  const run = (expression: string): data.ExpressionData => {
    const { tokens } = new Lexer(expression).lex()
    const tree = new Parser(tokens, ['github', 'inputs', 'secrets'], []).parse()
    const dictionary = JSON.parse(
      JSON.stringify({
        github: contexts.github,
        inputs: contexts.inputs ?? {},
        secrets: contexts.secrets ?? {}
      }),
      data.reviver
    ) as data.Dictionary
    return new Evaluator(tree, dictionary, new Map()).evaluate()
  }
  const text = value ?? ''
  if (options.condition) {
    const bare = text.trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1')
    return truthy(run(bare))
  }
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e: string) => run(e).coerceString())
}

const PROJECTS = [
  {
    kind: 'a Node project',
    files: { 'package.json': '{"scripts":{"test":"vitest"}}', 'package-lock.json': '{}' },
    gate: ['npm test'],
    setup: ['uses: actions/setup-node@v7'],
    commands: ['npm ci']
  },
  {
    kind: 'a Python project',
    files: { 'pyproject.toml': '[project]\nname = "demo"\n', 'requirements.txt': 'pytest\n' },
    gate: ['pytest'],
    setup: ['uses: actions/setup-python@v7'],
    commands: ['python -m pip install -r requirements.txt']
  },
  { kind: 'a project with neither', files: {}, gate: [], setup: [], commands: [] }
] as const

const LAYOUTS = [
  {
    layout: 'the split layout',
    argv: ['init'],
    workflows: [WORKFLOW_FILE, BOT_WORKFLOW_FILE],
    // The workflow whose runs the bot re-runs to review a pull request again.
    review: WORKFLOW_FILE
  },
  {
    layout: 'the fork layout',
    argv: ['init', '--forks'],
    workflows: [GATES_WORKFLOW_FILE, WORKFLOW_FILE, BOT_WORKFLOW_FILE],
    review: GATES_WORKFLOW_FILE
  }
] as const

/** The steps of a job, as `uses: X` or `run: X`. */
function stepList(job: Job | undefined): string[] {
  return (job?.steps ?? []).map(s =>
    s.uses !== undefined ? `uses: ${s.uses}` : `run: ${s.run ?? ''}`
  )
}

describe.each(PROJECTS)('rubric-council init, for $kind', ({ files, gate, setup, commands }) => {
  describe.each(LAYOUTS)('in $layout', ({ argv, workflows, review }) => {
    it('writes the rubric, then the workflows, and says so', async () => {
      const dir = project(files)
      const { code, out, err } = await cli([...argv], dir)
      expect({ code, err }).toEqual({ code: 0, err: [] })
      expect(out.slice(0, workflows.length + 1)).toEqual(
        [RUBRIC_FILE, ...workflows].map(f => `wrote ${f}`)
      )
    })

    it('writes workflows that parse and pass actionlint', async () => {
      const dir = project(files)
      await cli([...argv], dir)
      for (const file of workflows) {
        const text = read(dir, file)
        expect(() => parseYaml(text) as unknown, file).not.toThrow()
        expect(await actionlint(text, file), file).toEqual([])
      }
    })

    it('pins the action to the commit of this CLI: its full SHA, the version in a comment', async () => {
      expect(HEAD).toMatch(/^[0-9a-f]{40}$/)
      const dir = project(files)
      await cli([...argv], dir)
      for (const file of workflows) {
        const pins = [
          ...read(dir, file).matchAll(/^ *- uses: rubric-council\/rubric-council(\/gates)?@(.*)$/gm)
        ].map(m => m[2])
        expect(pins.length, file).toBeGreaterThan(0)
        for (const pin of pins) expect(pin, file).toBe(`${HEAD} # v${VERSION}`)
      }
    })

    it('runs the project’s code only in the job that holds no secret and a read-only token', async () => {
      const dir = project(files)
      await cli([...argv], dir)
      for (const file of workflows) expect(layoutViolations(read(dir, file)), file).toEqual([])
      const jobs = Object.assign({}, ...workflows.map(f => workflow(read(dir, f)).jobs)) as Record<
        string,
        Job
      >
      expect(Object.keys(jobs).sort()).toEqual(['bot', 'council', 'gates', 'heal'])
      // The toolchain's actions, then the gates action, which runs the install commands and the
      // gates and uploads their results: no run: step before it, and no step after it.
      const gates = stepList(jobs.gates)
      expect(gates).toEqual(['uses: actions/checkout@v7', ...setup, `uses: ${GATES_ACTION}`])
      const input = jobs.gates?.steps.at(-1)?.with?.setup
      expect(readSetupCommands(typeof input === 'string' ? input : '')).toEqual(commands)
      // The council only reads their results.
      expect(stepList(jobs.council)).toEqual(['uses: actions/checkout@v7', `uses: ${ACTION}`])
      // The bot holds a write token and runs for anyone's comment: the action alone, no checkout.
      expect(stepList(jobs.bot)).toEqual([`uses: ${ACTION}`])
      // Its heal job holds the keys too, on the schedule alone: the action alone, no checkout.
      expect(stepList(jobs.heal)).toEqual([`uses: ${ACTION}`])
    })

    it('writes the bot: on a push that changes a rubric (the folder of several too), on new comments and every half hour, re-running the review', async () => {
      const dir = project(files)
      await cli([...argv], dir)
      const bot = workflow(read(dir, BOT_WORKFLOW_FILE))
      expect(bot.name).toBe(BOT_WORKFLOW_NAME)
      expect(bot.on).toEqual({
        push: { paths: [RUBRIC_FILE, '.github/rubrics/**'] },
        issue_comment: { types: ['created'] },
        schedule: [{ cron: '17,47 * * * *' }]
      })
      expect(bot.permissions).toEqual({})
      // A command must not cancel another.
      expect(bot.concurrency).toBeUndefined()
      expect(Object.keys(bot.jobs)).toEqual(['bot', 'heal'])
      const job = bot.jobs.bot
      expect(job?.permissions).toEqual({
        contents: 'read',
        'pull-requests': 'write',
        checks: 'write',
        actions: 'write'
      })
      // It never asks the judges: no provider key, and nothing else from secrets.
      expect(JSON.stringify(job)).not.toMatch(/secrets/)
      const steps = [
        {
          uses: ACTION,
          with: { 'review-workflow': review.replace('.github/workflows/', '') }
        }
      ]
      expect(job?.steps).toEqual(steps)
      // Healing: a job of its own, which only the schedule starts, the one with the provider keys
      // (one probe per provider); it writes no check, and runs only the action.
      const heal = bot.jobs.heal
      expect(heal?.if).toBe("github.event_name == 'schedule'")
      expect(heal?.permissions).toEqual({
        contents: 'read',
        'pull-requests': 'write',
        checks: 'read',
        actions: 'write'
      })
      expect(heal?.steps).toEqual([
        {
          ...steps[0],
          env: {
            OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}',
            ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}'
          }
        }
      ])
    })

    it('writes the review the bot re-runs: on pull_request only, checking out the run’s own ref', async () => {
      const dir = project(files)
      await cli([...argv], dir)
      const w = workflow(read(dir, review))
      // No workflow_dispatch: a dispatched run that checks out the pull request would run its
      // code with the default branch's ref, cache scope and token.
      expect(Object.keys(w.on)).toEqual(['pull_request'])
      const checkouts = Object.values(w.jobs).flatMap(j =>
        j.steps.filter(s => s.uses === 'actions/checkout@v7')
      )
      expect(checkouts.length).toBe(review === WORKFLOW_FILE ? 2 : 1)
      for (const step of checkouts) {
        // actions/checkout's default: the run's ref (refs/pull/N/merge), which a re-run keeps.
        expect(step.with?.ref).toBeUndefined()
        expect(step.with?.['persist-credentials']).toBe(false)
      }
      // No concurrency group: its name is shared by every workflow in the repository, one a pull
      // request adds included, which could join it to cancel other pull requests' reviews.
      expect(w.concurrency).toBeUndefined()
    })

    it('writes a rubric that is valid, with the project’s test command as its gate', async () => {
      const dir = project(files)
      await cli([...argv], dir)
      expect(parse(read(dir, RUBRIC_FILE)).gates.map(g => g.command)).toEqual(gate)
      expect((await cli(['validate', RUBRIC_FILE], dir)).code).toBe(0)
    })
  })
})

describe('rubric-council init', () => {
  it('writes a valid starter rubric, with three must-haves', async () => {
    const dir = project({ 'package.json': '{}' })
    expect((await cli(['init'], dir)).code).toBe(0)
    const rubric = parse(read(dir, RUBRIC_FILE))
    expect(rubric.criteria.filter(c => c.required).map(c => c.id)).toEqual([
      'correct',
      'tested',
      'safe'
    ])
    // The workflow's two keys make a council of two: a reserve of another model settles a split.
    expect(rubric.council).toMatchObject({ models: [], reserve: ['openai:gpt-5.4'] })
    expect((await cli(['validate', RUBRIC_FILE], dir)).code).toBe(0)
  })

  it('makes a must-have earn the right to block: calibration: required, with what it does', async () => {
    const dir = project({ 'package.json': '{}' })
    await cli(['init'], dir)
    const text = read(dir, RUBRIC_FILE)
    expect(parse(text).calibration).toBe('required')
    // Said right above the line, in the file a maintainer reads.
    expect(text).toMatch(
      /# A must-have blocks only once measured: .*\n# \(\.github\/rubric-calibration\.json, from rubric-council calibrate --record\)[^]*\ncalibration: required\n---\n/
    )
  })

  it('writes one workflow with two jobs: the gates without secrets, then the council', async () => {
    const dir = project({ 'package.json': '{}', 'package-lock.json': '{}' })
    await cli(['init'], dir)
    const w = workflow(read(dir, WORKFLOW_FILE))
    expect(Object.keys(w.on)).toEqual(['pull_request'])
    // No path filters: a required check whose workflow does not run stays pending.
    expect(w.on.pull_request).toEqual({
      types: ['opened', 'synchronize', 'reopened', 'ready_for_review']
    })
    expect(w.permissions).toEqual({})
    expect(w.concurrency).toBeUndefined()

    const gates = w.jobs.gates
    expect(gates?.permissions).toEqual({ contents: 'read' })
    expect(gates?.steps[0]?.with).toEqual({ 'persist-credentials': false })
    expect(gates?.steps.at(-1)?.uses).toBe(GATES_ACTION)
    expect(Object.keys(gates?.steps.at(-1)?.with ?? {})).toEqual(['setup'])

    const council = w.jobs.council
    expect({ needs: council?.needs, if: council?.if }).toEqual({
      needs: 'gates',
      if: '${{ !cancelled() }}'
    })
    expect(council?.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      checks: 'write',
      actions: 'read'
    })
    expect(council?.steps[0]?.with).toEqual({ 'fetch-depth': 0, 'persist-credentials': false })
    const action = council?.steps[1]
    expect(action?.with).toEqual({ gates: 'recorded' })
    expect(action?.env).toEqual({
      OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}',
      ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}'
    })
  })

  it('says why in one comment each: two jobs, no secrets in gates, if: !cancelled(), actions: read', () => {
    const text = splitWorkflow(detectSetup(project({ 'package.json': '{}' })), PIN)
    expect(text.split('\n')[0]).toMatch(/^# Two jobs: `gates` runs the PR's code holding no secret/)
    expect(text).toMatch(/# No secrets and a read-only token: the gates run the PR's code/)
    expect(text).toMatch(/# Failed gates are a verdict to post, not a reason to skip the council/)
    expect(text).toMatch(/actions: read # the gates job's conclusion and artifact/)
    expect(text).toMatch(/# Only `uses:` steps: this job holds the keys and a write token/)

    const bot = botWorkflow('rubric-council.yml', PIN)
    expect(bot).toMatch(/# No concurrency group: a command must not cancel another, nor could/)
    expect(bot).toMatch(/# No checkout and no key: only the action/)
    expect(bot).toMatch(/# Healing: a check left UNCLEAR by a rate limit/)
    expect(bot).toMatch(
      /# The schedule only: no comment or push starts this job, the one that holds/
    )
    expect(bot).toMatch(/checks: read # each pull request's latest check/)
    expect(bot).toMatch(/actions: write # re-running a pull request's own review run/)
    expect(bot).toMatch(/checks: write # the pending check/)
    expect(bot).toMatch(/pull-requests: write # .*reaction and reply/)
    expect(bot).toMatch(/contents: read # the rubric, read through the API/)
    // Which workflow, and why a re-run of it stays in the pull request's scope.
    expect(bot).toMatch(
      /# The workflow that runs on pull_request: its latest run for the PR is re-run, in the PR's scope/
    )
  })

  it('with --forks, writes the gates on pull_request and the council on workflow_run after them', async () => {
    const dir = project({ 'package.json': '{}', 'package-lock.json': '{}' })
    const { out } = await cli(['init', '--forks'], dir)
    const gates = workflow(read(dir, GATES_WORKFLOW_FILE))
    const council = workflow(read(dir, WORKFLOW_FILE))
    expect(gates.name).toBe(GATES_WORKFLOW_NAME)
    expect(Object.keys(gates.on)).toEqual(['pull_request'])
    expect(Object.keys(gates.jobs)).toEqual(['gates'])
    expect(gates.permissions).toEqual({})
    expect(gates.concurrency).toBeUndefined()
    expect(council.on).toEqual({
      workflow_run: { workflows: [GATES_WORKFLOW_NAME], types: ['completed'] }
    })
    expect(council.permissions).toEqual({})
    expect(Object.keys(council.jobs)).toEqual(['council'])
    const job = council.jobs.council
    expect(job?.needs).toBeUndefined()
    expect(job?.steps[1]?.with).toEqual({ gates: 'recorded' })
    // The same two jobs as the split layout, each in its own file.
    const split = workflow(splitWorkflow(detectSetup(dir), PIN))
    expect(gates.jobs.gates).toEqual(split.jobs.gates)
    // On workflow_run, the action fetches the head commit itself: the checkout names no ref.
    expect(job?.steps[0]?.with).toEqual({ 'fetch-depth': 0, 'persist-credentials': false })
    const [checkout, ...rest] = split.jobs.council?.steps ?? []
    const checkoutWith = Object.fromEntries(
      Object.entries(checkout?.with ?? {}).filter(([key]) => key !== 'ref')
    )
    expect({ ...job, needs: 'gates', if: '${{ !cancelled() }}' }).toEqual({
      ...split.jobs.council,
      steps: [{ ...checkout, with: checkoutWith }, ...rest]
    })
    // workflow_run runs the council workflow only from the default branch: init says so.
    expect(out.join('\n')).toContain('Commit the four files to the default branch')
    // The bot re-runs the gates workflow; the council follows the re-run on workflow_run.
    expect(workflow(read(dir, BOT_WORKFLOW_FILE)).jobs.bot?.steps[0]?.with).toEqual({
      'review-workflow': 'rubric-council-gates.yml'
    })
  })

  it('writes no concurrency group anywhere, which a workflow a pull request adds could join to cancel reviews', async () => {
    for (const argv of [['init'], ['init', '--forks'], ['init', '--target']]) {
      const dir = project({ 'package.json': '{}', 'package-lock.json': '{}' })
      if (argv.includes('--target')) writeFileSync(join(dir, 'package.json'), '{}')
      const { out } = await cli(argv, dir)
      for (const file of [WORKFLOW_FILE, GATES_WORKFLOW_FILE, BOT_WORKFLOW_FILE]) {
        if (!existsSync(join(dir, file))) continue
        const w = workflow(read(dir, file))
        expect({ file, group: w.concurrency }).toEqual({ file, group: undefined })
        for (const job of Object.values(w.jobs)) {
          expect({ file, group: (job as { concurrency?: unknown }).concurrency }).toEqual({
            file,
            group: undefined
          })
        }
      }
      // The closing lines say how to make the check one a pull request cannot imitate.
      if (!argv.includes('--forks')) {
        expect(out.join('\n')).toContain('"Require\n     workflows to pass before merging"')
      }
    }
  })

  it("ignores the loop's sessions in .gitignore, once, keeping what it ignored", async () => {
    const dir = project({ '.gitignore': 'node_modules' })
    const first = await cli(['init'], dir)
    expect(first.out).toContain(
      'added .rubric-council/ to .gitignore (the sessions of rubric-council loop)'
    )
    expect(read(dir, '.gitignore')).toBe('node_modules\n.rubric-council/\n')
    const again = await cli(['init', '--force'], dir)
    expect(again.out.join('\n')).not.toContain('.gitignore')
    expect(read(dir, '.gitignore')).toBe('node_modules\n.rubric-council/\n')
  })

  it('refuses to overwrite a workflow without --force, writes nothing then, and keeps the rubric', async () => {
    const dir = project({})
    await cli(['init'], dir)
    writeFileSync(join(dir, RUBRIC_FILE), 'mine')
    const refused = await cli(['init'], dir)
    expect(refused.code).toBe(1)
    expect(refused.err).toEqual([
      `rubric-council: ${WORKFLOW_FILE} exists; not overwriting it (use --force)`,
      `rubric-council: ${BOT_WORKFLOW_FILE} exists; not overwriting it (use --force)`
    ])
    expect(read(dir, RUBRIC_FILE)).toBe('mine')
    const forced = await cli(['init', '--force'], dir)
    expect(forced.code).toBe(0)
    expect(forced.out[0]).toBe(`kept ${RUBRIC_FILE} as it is (init never overwrites a rubric)`)
    expect(read(dir, RUBRIC_FILE)).toBe('mine')
  })

  it('init --forks --force switches the layout and keeps the edited rubric as it is', async () => {
    const dir = project({ 'package.json': '{}' })
    expect((await cli(['init'], dir)).code).toBe(0)
    const edited = `${read(dir, RUBRIC_FILE)}\n- mine: The change keeps the public API stable\n`
    writeFileSync(join(dir, RUBRIC_FILE), edited)
    const split = read(dir, WORKFLOW_FILE)
    const switched = await cli(['init', '--forks', '--force'], dir)
    expect(switched.code).toBe(0)
    expect(read(dir, RUBRIC_FILE)).toBe(edited)
    expect(switched.out.slice(0, 4)).toEqual([
      `kept ${RUBRIC_FILE} as it is (init never overwrites a rubric)`,
      `wrote ${GATES_WORKFLOW_FILE}`,
      `wrote ${WORKFLOW_FILE}`,
      `wrote ${BOT_WORKFLOW_FILE}`
    ])
    expect(switched.out.join('\n')).not.toContain(`wrote ${RUBRIC_FILE}`)
    // The fork layout's two workflows: gates on pull_request, the council on workflow_run.
    expect(read(dir, WORKFLOW_FILE)).not.toBe(split)
    expect(Object.keys(workflow(read(dir, GATES_WORKFLOW_FILE)).on)).toContain('pull_request')
    expect(Object.keys(workflow(read(dir, WORKFLOW_FILE)).on)).toEqual(['workflow_run'])
    // And back: the fork layout's gates workflow is left, and named, not deleted.
    const back = await cli(['init', '--force'], dir)
    expect(read(dir, RUBRIC_FILE)).toBe(edited)
    expect(read(dir, WORKFLOW_FILE)).toBe(split)
    expect(back.out).toContain(
      `${GATES_WORKFLOW_FILE} is not part of this layout and still runs: delete it (git rm ${GATES_WORKFLOW_FILE}) if init wrote it`
    )
  })

  it.each([
    ['init', ['init'], WORKFLOW_FILE],
    ['init --forks', ['init', '--forks'], GATES_WORKFLOW_FILE]
  ])(
    '%s refuses when only the bot workflow exists, names it, writes nothing, and --force replaces it',
    async (_, argv, review) => {
      const dir = project({})
      mkdirSync(join(dir, '.github/workflows'), { recursive: true })
      writeFileSync(join(dir, BOT_WORKFLOW_FILE), 'mine')
      const refused = await cli(argv, dir)
      expect(refused.code).toBe(1)
      expect(refused.err).toEqual([
        `rubric-council: ${BOT_WORKFLOW_FILE} exists; not overwriting it (use --force)`
      ])
      expect(existsSync(join(dir, RUBRIC_FILE))).toBe(false)
      expect(existsSync(join(dir, review))).toBe(false)
      expect(read(dir, BOT_WORKFLOW_FILE)).toBe('mine')
      const forced = await cli([...argv, '--force'], dir)
      expect(forced.code).toBe(0)
      expect(forced.out).toContain(`wrote ${BOT_WORKFLOW_FILE}`)
      expect(read(dir, BOT_WORKFLOW_FILE)).toBe(
        botWorkflow(review.replace('.github/workflows/', ''), PIN)
      )
      expect(existsSync(join(dir, review))).toBe(true)
    }
  )

  it('says what the bot does in its advice, and that comments reach it only from the default branch', async () => {
    const { out } = await cli(['init'], project({}))
    const advice = out.join('\n')
    expect(advice).toContain('Commit the three files')
    expect(advice).toContain(`${BOT_WORKFLOW_FILE}, the bot, reviews open pull requests again`)
    expect(advice).toContain(
      '"/council rerun", "/council accept <reason>" and "/council waive <criterion-id> <reason>"'
    )
    expect(advice).toContain('GitHub runs it for comments only from the default branch')
  })

  it('the bot’s job starts on a push and on pull request comments that start with /council; its heal job on the schedule alone', () => {
    const condition = workflow(botWorkflow('rubric-council.yml', PIN)).jobs.bot?.if
    const comment = (body: string, onPullRequest: boolean) => ({
      github: {
        event_name: 'issue_comment',
        event: {
          comment: { body },
          issue: onPullRequest ? { number: 7, pull_request: { url: 'x' } } : { number: 7 }
        }
      }
    })
    const starts = (contexts: { github: Record<string, unknown> }) =>
      evaluated(condition, contexts, { condition: true })
    expect(starts({ github: { event_name: 'push', event: {} } })).toBe(true)
    const schedule = { github: { event_name: 'schedule', event: { schedule: '17,47 * * * *' } } }
    expect(starts(schedule)).toBe(false)
    expect(starts(comment('/council rerun', true))).toBe(true)
    expect(starts(comment('/council accept flaky network test', true))).toBe(true)
    expect(starts(comment('/council waive tests the harness is down', true))).toBe(true)
    // Comments on issues, and comments that are not commands, start nothing.
    expect(starts(comment('/council rerun', false))).toBe(false)
    expect(starts(comment('LGTM, thanks', true))).toBe(false)
    expect(starts(comment('please /council rerun', true))).toBe(false)
    // The job with the keys: the schedule alone starts it.
    const heals = (contexts: { github: Record<string, unknown> }) =>
      evaluated(workflow(botWorkflow('rubric-council.yml', PIN)).jobs.heal?.if, contexts, {
        condition: true
      })
    expect(heals(schedule)).toBe(true)
    expect(heals({ github: { event_name: 'push', event: {} } })).toBe(false)
    expect(heals(comment('/council rerun', true))).toBe(false)
  })

  it('with --forks, refuses when either workflow exists, names it, and writes nothing', async () => {
    const dir = project({})
    mkdirSync(join(dir, '.github/workflows'), { recursive: true })
    writeFileSync(join(dir, GATES_WORKFLOW_FILE), 'mine')
    const refused = await cli(['init', '--forks'], dir)
    expect(refused.code).toBe(1)
    expect(refused.err).toEqual([
      `rubric-council: ${GATES_WORKFLOW_FILE} exists; not overwriting it (use --force)`
    ])
    expect(existsSync(join(dir, RUBRIC_FILE))).toBe(false)
    expect(existsSync(join(dir, WORKFLOW_FILE))).toBe(false)
    expect(read(dir, GATES_WORKFLOW_FILE)).toBe('mine')
    expect((await cli(['init', '--forks', '--force'], dir)).code).toBe(0)
    expect(read(dir, GATES_WORKFLOW_FILE)).not.toBe('mine')
    expect(existsSync(join(dir, WORKFLOW_FILE))).toBe(true)
  })

  it('takes --forks only with init', async () => {
    const result = await cli(['check', '--forks'], project({}))
    expect(result.code).toBe(2)
    expect(result.err).toEqual([
      'rubric-council: --forks belongs to the init command (see rubric-council check --help)'
    ])
  })

  it('leaves the gates out when it cannot tell the test command, and the rubric is still valid', async () => {
    const dir = project({})
    await cli(['init'], dir)
    expect(parse(read(dir, RUBRIC_FILE)).gates).toEqual([])
    expect(existsSync(join(dir, WORKFLOW_FILE))).toBe(true)
  })
})

describe('rubric-council init, when it cannot tell its own commit', () => {
  it('writes nothing, and says how to pin the action by hand', async () => {
    const dir = project({ 'package.json': '{}' })
    const err: string[] = []
    const io: CliIo = { stdout: () => undefined, stderr: l => err.push(l), env: {}, cwd: dir }
    const code = await initCommand({ force: false, forks: false }, io, () => ({
      version: VERSION,
      packageRoot: '/opt/rubric-council',
      checkoutHead: undefined,
      packedCommit: undefined,
      releaseTags: []
    }))
    expect(code).toBe(1)
    expect(err).toHaveLength(1)
    expect(err[0]).toMatch(
      /^rubric-council: cannot tell which commit of Rubric Council this CLI is/
    )
    expect(err[0]).toContain(
      `git ls-remote https://github.com/rubric-council/rubric-council 'refs/tags/v${VERSION}^{}'`
    )
    expect(existsSync(join(dir, RUBRIC_FILE))).toBe(false)
    expect(existsSync(join(dir, WORKFLOW_FILE))).toBe(false)
  })
})

describe('the gates job’s setup', () => {
  /**
   * The set-up init writes for a project of these files: the steps between the checkout and the
   * gates action, as `uses:` and `with:`, and the commands of the gates action's `setup` input.
   */
  function setupOf(files: Record<string, string>): {
    steps: string[]
    with: unknown[]
    commands: string[]
  } {
    const text = splitWorkflow(detectSetup(project(files)), PIN)
    const all = workflow(text).jobs.gates?.steps ?? []
    const steps = all.slice(1, -1)
    const setup = all.at(-1)?.with?.setup
    const commands = readSetupCommands(typeof setup === 'string' ? setup : '')
    return { steps: stepList({ steps }), with: steps.map(s => s.with), commands }
  }

  it.each([
    [
      'npm, with a lockfile and .nvmrc',
      { 'package.json': '{}', 'package-lock.json': '{}', '.nvmrc': '24\n' },
      ['uses: actions/setup-node@v7'],
      [{ 'node-version-file': '.nvmrc', 'package-manager-cache': false }],
      ['npm ci']
    ],
    [
      'npm, with .node-version',
      { 'package.json': '{}', 'package-lock.json': '{}', '.node-version': '24\n' },
      ['uses: actions/setup-node@v7'],
      [{ 'node-version-file': '.node-version', 'package-manager-cache': false }],
      ['npm ci']
    ],
    [
      'npm, without a lockfile',
      { 'package.json': '{}' },
      ['uses: actions/setup-node@v7'],
      [{ 'node-version': 'lts/*', 'package-manager-cache': false }],
      ['npm install']
    ],
    [
      'pnpm, its version unnamed in package.json',
      { 'package.json': '{}', 'pnpm-lock.yaml': '' },
      ['uses: pnpm/action-setup@v6', 'uses: actions/setup-node@v7'],
      [{ version: 10 }, { 'node-version': 'lts/*', 'package-manager-cache': false }],
      ['pnpm install --frozen-lockfile']
    ],
    [
      'pnpm, named in "packageManager"',
      { 'package.json': '{"packageManager":"pnpm@10.4.1"}', 'pnpm-lock.yaml': '' },
      ['uses: pnpm/action-setup@v6', 'uses: actions/setup-node@v7'],
      [undefined, { 'node-version': 'lts/*', 'package-manager-cache': false }],
      ['pnpm install --frozen-lockfile']
    ],
    [
      'Yarn 1',
      { 'package.json': '{}', 'yarn.lock': '' },
      ['uses: actions/setup-node@v7'],
      [{ 'node-version': 'lts/*', 'package-manager-cache': false }],
      ['yarn install --frozen-lockfile']
    ],
    [
      'Yarn 2 or later',
      { 'package.json': '{}', 'yarn.lock': '', '.yarnrc.yml': '' },
      ['uses: actions/setup-node@v7'],
      [{ 'node-version': 'lts/*', 'package-manager-cache': false }],
      ['corepack enable', 'yarn install --immutable']
    ],
    [
      'Python, with requirements.txt and .python-version',
      { 'requirements.txt': '', '.python-version': '3.13\n' },
      ['uses: actions/setup-python@v7'],
      [{ 'python-version-file': '.python-version' }],
      ['python -m pip install -r requirements.txt']
    ],
    [
      'Python, a package without requirements.txt',
      { 'pyproject.toml': '' },
      ['uses: actions/setup-python@v7'],
      [{ 'python-version': '3.x' }],
      ['python -m pip install -e .']
    ],
    ['Go: a placeholder', { 'go.mod': '' }, [], [], []],
    ['nothing known: a placeholder', {}, [], [], []]
  ] as const)('%s', async (_, files, steps, withs, commands) => {
    expect(setupOf(files)).toEqual({ steps, with: withs, commands })
    const setup = detectSetup(project(files))
    const { gates, council } = forksWorkflows(setup, PIN)
    for (const text of [splitWorkflow(setup, PIN), gates, council]) {
      expect(await actionlint(text)).toEqual([])
      expect(layoutViolations(text)).toEqual([])
    }
  })

  it('says what to put in the placeholder, for the toolchain it sees', () => {
    expect(detectSetup(project({ 'go.mod': '' })).steps).toContain('actions/setup-go@v7')
    expect(detectSetup(project({ 'go.mod': '' })).steps).toContain('go-version-file: go.mod')
    expect(detectSetup(project({ 'pom.xml': '' })).steps).toContain('actions/setup-java@v6')
    expect(detectSetup(project({ Gemfile: '' })).steps).toContain('ruby/setup-ruby@v1')
    expect(detectSetup(project({ 'Cargo.toml': '' })).commands).toContain('# cargo fetch --locked')
    expect(detectSetup(project({ Gemfile: '' })).commands).toContain('# bundle install')
    for (const files of [{ 'go.mod': '' }, {}]) {
      const setup = detectSetup(project(files))
      expect(setup.placeholder).toBe(true)
      // Comments only: the gates job runs nothing more until someone fills it in.
      expect(
        setup.steps.split('\n').filter(l => l.trim() !== '' && !l.trim().startsWith('#'))
      ).toEqual([])
      expect(readSetupCommands(setup.commands)).toEqual([])
    }
  })
})

describe('rubric-council init --target', () => {
  const TYPES = ['opened', 'synchronize', 'reopened', 'ready_for_review']

  it('writes a rubric without gates and one workflow on pull_request_target that runs no code of the PR', async () => {
    // A Node project: plain init would make `npm test` a gate.
    const dir = project({ 'package.json': '{"scripts":{"test":"vitest"}}' })
    const { code, out } = await cli(['init', '--target'], dir)
    expect(code).toBe(0)
    expect(out.slice(0, 2)).toEqual([`wrote ${RUBRIC_FILE}`, `wrote ${WORKFLOW_FILE}`])
    expect(existsSync(join(dir, BOT_WORKFLOW_FILE))).toBe(false)
    const rubric = parse(read(dir, RUBRIC_FILE))
    expect(rubric.gates).toEqual([])
    expect(rubric.criteria.filter(c => c.required).length).toBe(3)

    const text = read(dir, WORKFLOW_FILE)
    expect(text).toBe(targetWorkflow(PIN))
    const w = workflow(text)
    expect(w.on).toEqual({ pull_request_target: { types: TYPES } })
    expect(w.permissions).toEqual({})
    expect(w.concurrency).toBeUndefined()
    expect(Object.keys(w.jobs)).toEqual(['council'])
    const job = w.jobs.council
    expect(job?.permissions).toEqual({
      contents: 'read',
      'pull-requests': 'write',
      checks: 'write'
    })
    expect(stepList(job)).toEqual(['uses: actions/checkout@v7', `uses: ${ACTION}`])
    // The base, this event's default: no ref: of the pull request, no token left in .git/config.
    expect(job?.steps[0]?.with).toEqual({ 'persist-credentials': false })
    expect(job?.steps[1]?.with).toBeUndefined()
    expect(job?.steps[1]?.env).toEqual({
      OPENAI_API_KEY: '${{ secrets.OPENAI_API_KEY }}',
      ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}'
    })
    expect(layoutViolations(text)).toEqual([])
    expect(await actionlint(text, WORKFLOW_FILE)).toEqual([])
  })

  it('keeps a rubric without gates that exists, and writes only the workflow', async () => {
    const dir = project({})
    mkdirSync(join(dir, '.github'))
    const mine = '## Criteria\n- safe: No secrets are introduced\n'
    writeFileSync(join(dir, RUBRIC_FILE), mine)
    const { code, out } = await cli(['init', '--target'], dir)
    expect(code).toBe(0)
    expect(out.slice(0, 2)).toEqual([
      `kept ${RUBRIC_FILE} as it is (init never overwrites a rubric)`,
      `wrote ${WORKFLOW_FILE}`
    ])
    expect(out).not.toContain(`wrote ${RUBRIC_FILE}`)
    expect(read(dir, RUBRIC_FILE)).toBe(mine)
  })

  it.each([[['init', '--target']], [['init', '--target', '--force']]])(
    '%j refuses a rubric with gates in one line, and writes nothing',
    async argv => {
      const dir = project({})
      mkdirSync(join(dir, '.github'))
      writeFileSync(
        join(dir, RUBRIC_FILE),
        '## Gates\n\n- `npm test`\n- `npm run lint`\n\n## Criteria\n- safe: No secrets\n'
      )
      const { code, out, err } = await cli(argv, dir)
      expect(code).toBe(2)
      expect(out).toEqual([])
      expect(err).toEqual([
        `rubric-council: --target is for a rubric without gates, and ${RUBRIC_FILE}:3 has 2 gates ("npm test", …), which would need the pull request's code to run: use init (or init --forks) for gates, or remove them (see rubric-council init --help)`
      ])
      expect(existsSync(join(dir, WORKFLOW_FILE))).toBe(false)
    }
  )

  it('takes --target or --forks, not both', async () => {
    const dir = project({})
    const { code, err } = await cli(['init', '--target', '--forks'], dir)
    expect(code).toBe(2)
    expect(err).toEqual([
      'rubric-council: --target and --forks are two layouts: choose one (see rubric-council init --help)'
    ])
    expect(existsSync(join(dir, RUBRIC_FILE))).toBe(false)
  })

  it('refuses to overwrite the workflow without --force', async () => {
    const dir = project({})
    await cli(['init', '--target'], dir)
    writeFileSync(join(dir, WORKFLOW_FILE), 'mine')
    const refused = await cli(['init', '--target'], dir)
    expect(refused.code).toBe(1)
    expect(refused.err).toEqual([
      `rubric-council: ${WORKFLOW_FILE} exists; not overwriting it (use --force)`
    ])
    expect((await cli(['init', '--target', '--force'], dir)).code).toBe(0)
    expect(read(dir, WORKFLOW_FILE)).toBe(targetWorkflow(PIN))
  })

  it.each([
    [
      'a checkout of the pull request’s head',
      (t: string) =>
        t.replace(
          '          persist-credentials: false\n',
          '          ref: ${{ github.event.pull_request.head.sha }}\n          persist-credentials: false\n'
        ),
      [
        'job council (on pull_request_target) checks out ref: ${{ github.event.pull_request.head.sha }}, not the base'
      ]
    ],
    [
      'the gates run in the job',
      (t: string) =>
        t.replace(
          `      - uses: ${ACTION_LINE}\n`,
          `      - uses: ${GATES_LINE}\n      - uses: ${ACTION_LINE}\n`
        ),
      [
        `job council (it reads secrets, pull-requests: write, checks: write) runs code: uses: ${GATES_ACTION}`,
        'job council (on pull_request_target) runs the gates',
        `job council has a step after the gates action: uses: ${ACTION}`,
        'job council runs the gates and reads secrets',
        'job council runs the gates with permissions {"contents":"read","pull-requests":"write","checks":"write"}, not { contents: read }'
      ]
    ],
    [
      'a shell step',
      (t: string) =>
        t.replace(
          `      - uses: ${ACTION_LINE}\n`,
          `      - run: npm test\n      - uses: ${ACTION_LINE}\n`
        ),
      [
        'job council (it reads secrets, pull-requests: write, checks: write) runs code: run: npm test',
        'job council holds the keys and has a step that is not uses: run: npm test'
      ]
    ]
  ] as const)('the structural check fails %s', (_, edit, problems) => {
    const text = targetWorkflow(PIN)
    const broken = edit(text)
    expect(broken).not.toBe(text)
    expect(layoutViolations(broken).sort()).toEqual([...problems].sort())
  })
})

describe('the checks on a generated workflow', () => {
  const text = splitWorkflow(
    detectSetup(project({ 'package.json': '{}', 'package-lock.json': '{}' })),
    PIN
  )

  it('actionlint fails a deliberately broken workflow', async () => {
    const broken = text
      .replace('    needs: gates\n', '    needs: gate\n')
      .replace('      pull-requests: write', '      pull-request: write')
    expect(broken).not.toBe(text)
    const findings = await actionlint(broken)
    expect(findings).toEqual([
      expect.stringMatching(/job "council" needs job "gate" which does not exist.*\[job-needs\]$/),
      expect.stringMatching(/unknown permission scope "pull-request".*\[permissions\]$/)
    ])
  })

  it.each([
    [
      'a shell step in the council',
      (t: string) =>
        t.replace(
          `      - uses: ${ACTION_LINE}\n`,
          `      - run: npm test\n      - uses: ${ACTION_LINE}\n`
        ),
      [
        'job council (it reads secrets, pull-requests: write, checks: write, actions: read) runs code: run: npm test',
        'job council holds the keys and has a step that is not uses: run: npm test'
      ]
    ],
    [
      'the project set up in the council',
      (t: string) =>
        t.replace(
          `      - uses: ${ACTION_LINE}\n`,
          `      - uses: actions/setup-node@v7\n      - uses: ${ACTION_LINE}\n`
        ),
      [
        'job council (it reads secrets, pull-requests: write, checks: write, actions: read) runs code: uses: actions/setup-node@v7'
      ]
    ],
    [
      'a secret given to the gates',
      (t: string) =>
        t.replace(
          `      - uses: ${GATES_LINE}\n`,
          `      - uses: ${GATES_LINE}\n        env:\n          NPM_TOKEN: \${{ secrets.NPM_TOKEN }}\n`
        ),
      [
        'job gates (it reads secrets) runs code: uses: actions/setup-node@v7',
        `job gates (it reads secrets) runs code: uses: ${GATES_ACTION}`,
        'job gates runs the gates and reads secrets'
      ].sort()
    ],
    [
      'every secret handed to the gates, without naming one',
      (t: string) =>
        t.replace(
          `      - uses: ${GATES_LINE}\n`,
          `      - uses: ${GATES_LINE}\n        env:\n          ALL: \${{ toJSON(secrets) }}\n`
        ),
      [
        'job gates (it reads secrets) runs code: uses: actions/setup-node@v7',
        `job gates (it reads secrets) runs code: uses: ${GATES_ACTION}`,
        'job gates runs the gates and reads secrets'
      ]
    ],
    [
      'a write token in the gates',
      (t: string) =>
        t.replace(
          '    permissions:\n      contents: read\n    # Only actions',
          '    permissions:\n      contents: write\n    # Only actions'
        ),
      [
        'job gates (contents: write) runs code: uses: actions/setup-node@v7',
        `job gates (contents: write) runs code: uses: ${GATES_ACTION}`,
        'job gates runs the gates with permissions {"contents":"write"}, not { contents: read }'
      ].sort()
    ],
    [
      'the install as a shell step before the gates action',
      (t: string) =>
        t.replace(
          `      - uses: ${GATES_LINE}\n`,
          `      - run: npm ci\n      - uses: ${GATES_LINE}\n`
        ),
      ['job gates runs code before the gates action: run: npm ci']
    ],
    [
      'a package-manager cache in the gates job (it runs pnpm or Yarn in the checkout first)',
      (t: string) =>
        t.replace(
          "          package-manager-cache: false # a cache runs the package manager in the PR's checkout\n",
          '          cache: pnpm\n'
        ),
      [
        'job gates caches a package manager before the gates action: uses: actions/setup-node@v7',
        "job gates leaves setup-node's package-manager cache on before the gates action: uses: actions/setup-node@v7"
      ]
    ],
    [
      'a local action before the gates action',
      (t: string) =>
        t.replace(
          `      - uses: ${GATES_LINE}\n`,
          `      - uses: ./.github/actions/install\n      - uses: ${GATES_LINE}\n`
        ),
      ['job gates runs code before the gates action: uses: ./.github/actions/install']
    ],
    [
      'an upload step after the gates action',
      (t: string) =>
        t.replace(
          '        # It uploads the results itself, as the artifact rubric-council-gates-<attempt>.\n',
          '      - uses: actions/upload-artifact@v7\n        with:\n          name: rubric-council-gates\n          path: results.json\n'
        ),
      ['job gates has a step after the gates action: uses: actions/upload-artifact@v7']
    ],
    [
      'a token left in .git/config',
      (t: string) =>
        t.replace(
          "          persist-credentials: false # no token in .git/config for the PR's code to find\n",
          '          persist-credentials: true\n'
        ),
      ['job gates checks out without persist-credentials: false']
    ],
    [
      'the default permissions',
      (t: string) => t.replace('permissions: {}\n', ''),
      ['top-level permissions are undefined, not {}']
    ],
    [
      'secrets for the whole workflow',
      (t: string) =>
        t.replace('permissions: {}\n', 'permissions: {}\nenv:\n  KEY: ${{ secrets.KEY }}\n'),
      ['the workflow reads secrets outside its jobs']
    ]
  ] as const)('the structural check fails %s', (_, edit, problems) => {
    const broken = edit(text)
    expect(broken).not.toBe(text)
    expect(layoutViolations(broken).sort()).toEqual([...problems].sort())
  })
})

describe('the structural check on the bot’s workflow', () => {
  const text = botWorkflow('rubric-council.yml', PIN)
  const privileged = 'job bot (pull-requests: write, checks: write, actions: write)'

  it('passes the bot as init writes it: a write token, but only the action, no checkout, no key', () => {
    expect(layoutViolations(text)).toEqual([])
  })

  it.each([
    [
      'a shell step',
      (t: string) =>
        t.replace(
          `      - uses: ${ACTION_LINE}\n`,
          `      - run: npm test\n      - uses: ${ACTION_LINE}\n`
        ),
      [
        `${privileged} runs code: run: npm test`,
        'job bot (on push, issue_comment) has a step that is not uses: run: npm test'
      ]
    ],
    [
      'a checkout of the pull request’s head',
      (t: string) =>
        t.replace(
          `      - uses: ${ACTION_LINE}\n`,
          `      - uses: actions/checkout@v7\n        with:\n          ref: refs/pull/\${{ github.event.issue.number }}/head\n          persist-credentials: false\n      - uses: ${ACTION_LINE}\n`
        ),
      ['job bot (on push, issue_comment) checks out code: uses: actions/checkout@v7']
    ],
    [
      'the checkout’s own action run from it',
      (t: string) =>
        t.replace(
          `      - uses: ${ACTION_LINE}\n`,
          '      - uses: actions/checkout@v7\n      - uses: ./\n'
        ),
      [
        `${privileged} runs code: uses: ./`,
        'job bot (on push, issue_comment) checks out code: uses: actions/checkout@v7'
      ]
    ],
    [
      'a provider key',
      (t: string) =>
        t.replace(
          '          review-workflow: rubric-council.yml\n',
          '          review-workflow: rubric-council.yml\n        env:\n          OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}\n'
        ),
      ['job bot (on push, issue_comment) reads secrets']
    ],
    [
      'a checkout in its heal job',
      (t: string) =>
        t.replace(
          `    steps:\n      - uses: ${ACTION_LINE}\n        env:`,
          `    steps:\n      - uses: actions/checkout@v7\n      - uses: ${ACTION_LINE}\n        env:`
        ),
      ['job heal (on schedule) checks out code: uses: actions/checkout@v7']
    ],
    [
      'the default permissions',
      (t: string) => t.replace('permissions: {}\n', ''),
      ['top-level permissions are undefined, not {}']
    ]
  ] as const)('fails the bot with %s', (_, edit, problems) => {
    const broken = edit(text)
    expect(broken).not.toBe(text)
    expect(layoutViolations(broken).sort()).toEqual([...problems].sort())
  })
})

describe('rubric-council check --dry-run', () => {
  it('prints the comment the action would post, marker first and history last', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rc-dry-'))
    const { code, out } = await cli(['check', '--checker', 'true', '--dry-run'], dir)
    expect(code).toBe(0)
    const body = out.join('\n')
    expect(body.split('\n')[0]).toBe('<!-- rubric-council:rubric-council -->')
    expect(body).toContain('### ✅ Rubric Council: PASS')
    expect(body.trimEnd()).toMatch(/<!-- rubric-council-state:[A-Za-z0-9+/=]+ -->$/)
  })
})

describe('the documented actionlint command: npm run actionlint -- FILE...', () => {
  const ROOT = join(import.meta.dirname, '..')
  const lint = (files: readonly string[]) =>
    promisify(execFile)('npm', ['run', '-s', 'actionlint', '--', ...files], { cwd: ROOT }).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: unknown) => error as { code: number; stdout: string }
    )

  it('passes every workflow init writes, and fails a broken one naming file, line and kind', async () => {
    const files: string[] = []
    for (const argv of [['init'], ['init', '--forks'], ['init', '--target']]) {
      const dir = project({ 'package.json': '{}' })
      expect((await cli(argv, dir)).code).toBe(0)
      for (const f of [WORKFLOW_FILE, GATES_WORKFLOW_FILE, BOT_WORKFLOW_FILE]) {
        if (existsSync(join(dir, f))) files.push(join(dir, f))
      }
    }
    expect(files).toHaveLength(6)
    expect(await lint(files)).toEqual({ code: 0, stdout: '' })
    const broken = join(tmpdir(), `broken-${process.pid}.yml`)
    writeFileSync(
      broken,
      readFileSync(files[0] ?? '', 'utf8').replace(/permissions:\n/, 'permission:\n')
    )
    const failed = await lint([broken])
    expect(failed.code).toBe(1)
    expect(failed.stdout).toMatch(new RegExp(`^${broken}:\\d+:\\d+: .*\\[syntax-check\\]$`, 'm'))
  })
})

describe('rubric-council init --calibrate', () => {
  const FILE = '.github/workflows/rubric-council-calibrate.yml'

  it('writes only the calibration workflow: on workflow_dispatch, read-only, the CLI at this commit', async () => {
    const dir = project({ 'package.json': '{}' })
    const { code, out, err } = await cli(['init', '--calibrate'], dir)
    expect({ code, err }).toEqual({ code: 0, err: [] })
    expect(out[0]).toBe(`wrote ${FILE}`)
    expect(existsSync(join(dir, RUBRIC_FILE))).toBe(false)
    const text = read(dir, FILE)
    expect(await actionlint(text, FILE)).toEqual([])
    const flow = parseYaml(text) as {
      on: Record<string, unknown>
      permissions: unknown
      jobs: Record<string, Job>
    }
    expect(Object.keys(flow.on)).toEqual(['workflow_dispatch'])
    expect(flow.permissions).toEqual({})
    const job = flow.jobs.calibrate
    expect(job?.permissions).toEqual({ contents: 'read' })
    // The CLI from the action's repository at the commit init pins the action to, by its full SHA.
    const cliCheckout = job?.steps.find(s => s.with?.repository === 'rubric-council/rubric-council')
    expect(cliCheckout?.with?.ref).toBe(HEAD)
    expect(text).toContain(`ref: ${HEAD} # v${VERSION}`)
    const run = job?.steps.find(s => s.run !== undefined)?.run ?? ''
    expect(run).toContain('node .rubric-council/bin/rubric-council.js calibrate --repeat "$REPEAT"')
    // No expression inside the script: the input reaches it as an environment variable.
    expect(run).not.toContain('${{')
    const upload = job?.steps.at(-1)
    expect(upload?.uses).toBe('actions/upload-artifact@v7')
    expect(upload?.if).toBe('${{ !cancelled() }}')
    expect(upload?.with?.path).toBe('${{ runner.temp }}/calibration/')
  })

  it('never overwrites the workflow without --force, and stands apart from the layouts', async () => {
    const dir = project({})
    expect((await cli(['init', '--calibrate'], dir)).code).toBe(0)
    writeFileSync(join(dir, FILE), 'edited\n')
    expect(await cli(['init', '--calibrate'], dir)).toMatchObject({
      code: 1,
      err: [`rubric-council: ${FILE} exists; not overwriting it (use --force)`]
    })
    expect(read(dir, FILE)).toBe('edited\n')
    expect((await cli(['init', '--calibrate', '--force'], dir)).code).toBe(0)
    expect(read(dir, FILE)).toContain('name: Rubric Council calibration')
    expect((await cli(['init', '--calibrate', '--forks'], dir)).code).toBe(2)
  })
})
