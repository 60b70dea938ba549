import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { gatesAction } from '../src/gates-action.js'
import { gatesArtifact, readRecord } from '../src/gates/record.js'
import { prepareRunner, pullRequestEvent } from './helpers/action-run.js'
import { pullRequest, type PullRequest } from './helpers/in-process.js'
import { recordingIO, type RecordingIO } from './helpers/recording-io.js'

/**
 * The gates sub-action's flow in process, through its ports: the runner's environment and inputs,
 * its log, GitHub in memory and the results service's upload recorded. The setup commands and
 * gates really run, on a real git checkout. (The bundle end to end: __tests__/split-layout.test.ts.)
 */

const rubric = (gate: string): string =>
  `---\ndimensions: false\n---\n## Gates\n- \`${gate}\`\n## Criteria\n- tested: The change is tested\n`

interface GatesRan extends RecordingIO {
  /** What was uploaded: the artifact's name and the file's text then. */
  readonly uploads: { readonly name: string; readonly text: string }[]
}

async function gatesJob(
  pr: PullRequest,
  options: {
    readonly eventName?: string
    readonly inputs?: Record<string, string>
    /** The results service refuses the upload with this message. */
    readonly uploadFails?: string
  } = {}
): Promise<GatesRan> {
  const { env } = prepareRunner({
    workspace: pr.repo.dir,
    eventName: options.eventName ?? 'pull_request',
    eventPath: pullRequestEvent(pr.repo, { number: pr.number }),
    inputs: { 'github-token': 'ghs_gates_job_readonly', ...options.inputs }
  })
  const uploads: { name: string; text: string }[] = []
  const io = recordingIO()
  await gatesAction({
    env,
    getInput: name => (env[`INPUT_${name.toUpperCase().replaceAll(' ', '_')}`] ?? '').trim(),
    io,
    github: token => (token === '' ? undefined : pr.github),
    upload: (name, file) => {
      if (options.uploadFails !== undefined) return Promise.reject(new Error(options.uploadFails))
      uploads.push({ name, text: readFileSync(file, 'utf8') })
      return Promise.resolve(77)
    }
  })
  return Object.assign(io, { uploads })
}

describe('the gates sub-action, through its ports', () => {
  it('runs the setup and the rubric’s gates, and uploads their record for the council job', async () => {
    const pr = pullRequest({ '.github/rubric.md': rubric('test -f built.txt') })
    const ran = await gatesJob(pr, { inputs: { setup: 'touch built.txt' } })
    expect(ran.failed).toBeUndefined()
    expect(ran.outputs.passed).toBe('true')
    expect(ran.uploads.map(u => u.name)).toEqual([gatesArtifact(1)])
    const record = readRecord(ran.uploads[0]?.text ?? '')
    if (!record.ok) throw new Error(record.problem)
    expect(record.value).toMatchObject({
      repository: 'octo-org/octo-repo',
      pullRequest: pr.number,
      headSha: pr.repo.headSha,
      setup: [{ status: 'pass' }],
      gates: [{ command: 'test -f built.txt', status: 'pass' }]
    })
    expect(ran.outputs['results-file']).toMatch(/rubric-council-gates[/\\]record-.+[/\\]/)
    expect(ran.log).toContain(
      `Rubric Council gates: the results are uploaded as artifact ${gatesArtifact(1)} (77)`
    )
    expect(ran.log.at(-1)).toBe(
      'Rubric Council gates: all 2 passed; the council job gives the verdict'
    )
  })

  it('runs the base branch’s gate, not the one the pull request writes into the rubric', async () => {
    const pr = pullRequest(
      { '.github/rubric.md': rubric('! grep -q evil feature.ts') },
      { 'feature.ts': 'evil\n', '.github/rubric.md': rubric('true') }
    )
    const ran = await gatesJob(pr)
    expect(ran.failed).toEqual({
      message: 'Rubric Council gates: 1 of 1 did not pass: "! grep -q evil feature.ts" (fail)',
      exitCode: 1
    })
    expect(ran.outputs.passed).toBe('false')
    // The council job still gets the record, which says so.
    expect(ran.uploads).toHaveLength(1)
  })

  it('fails the step when the upload fails, though every gate passed', async () => {
    const pr = pullRequest({ '.github/rubric.md': rubric('true') })
    const ran = await gatesJob(pr, { uploadFails: 'artifact name already taken' })
    expect(ran.outputs.passed).toBe('true')
    expect(ran.failed).toEqual({
      message: `Rubric Council gates: could not upload the results as artifact "${gatesArtifact(1)}": artifact name already taken`,
      exitCode: 1
    })
  })

  it('fails the step when the rubric is unusable, with its problems as errors', async () => {
    const pr = pullRequest({ '.github/rubric.md': '## Gates\n- `true`\n## Nothing\n' })
    const ran = await gatesJob(pr)
    expect(ran.failed).toEqual({
      message: 'Rubric Council gates: the rubric is unusable; the council job will say why',
      exitCode: 2
    })
    expect(ran.errors.length).toBeGreaterThan(0)
    expect(ran.outputs.passed).toBe('false')
  })

  it.each(['pull_request_target', 'workflow_dispatch'])(
    'runs nothing of the pull request on %s, and fails the step',
    async eventName => {
      const pr = pullRequest({ '.github/rubric.md': rubric('touch gate-ran') })
      const ran = await gatesJob(pr, {
        eventName,
        inputs: { setup: 'touch setup-ran', 'pull-request': String(pr.number) }
      })
      expect(ran.failed?.exitCode).toBe(2)
      expect(ran.failed?.message).toContain(`Rubric Council gates: on ${eventName} `)
      expect(ran.failed?.message).toContain(
        'run the gates on pull_request, in a job without secrets'
      )
      expect(existsSync(join(pr.repo.dir, 'setup-ran'))).toBe(false)
      expect(existsSync(join(pr.repo.dir, 'gate-ran'))).toBe(false)
      expect(ran.uploads).toEqual([])
    }
  )

  it('says a bad input, quoting it, and runs nothing', async () => {
    const pr = pullRequest({ '.github/rubric.md': rubric('touch gate-ran') })
    const ran = await gatesJob(pr, { inputs: { 'fail-on': 'sometimes' } })
    expect(ran.failed).toEqual({
      message:
        'Rubric Council gates: input "fail-on" is "sometimes"; expected one of unclear, fail, never',
      exitCode: 2
    })
    expect(existsSync(join(pr.repo.dir, 'gate-ran'))).toBe(false)
  })

  it('registers the job’s secrets before anything is said', async () => {
    const pr = pullRequest({ '.github/rubric.md': rubric('true') })
    const ran = await gatesJob(pr)
    expect(ran.secrets).toContain('ghs_gates_job_readonly')
  })
})
