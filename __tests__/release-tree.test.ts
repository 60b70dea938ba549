import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RELEASE_ARCHIVE_BUDGET } from '../scripts/release.js'
import { inReleaseTree } from '../src/init/release-tree.js'
import { openPullRequest, OWNER, pullRequestEvent, REPO, runAction } from './helpers/action-run.js'
import { startGitHubStandIn, type GitHubStandIn } from './helpers/github-standin.js'
import { wireAnswer } from './helpers/judge-answers.js'
import { startProviderStandIn, type StandIn } from './helpers/provider-standin.js'

/**
 * `npm run release -- --dry-run` on this repository: the release tree of HEAD's commit, which the
 * tags of a release name, built without a trace in the repository; then the action run from that
 * tree alone, as a job that `uses:` the release downloads it, judged by three providers' judges
 * (each provider's code is a chunk of its own) and posting its comment.
 */

const ROOT = join(import.meta.dirname, '..')
const TSX = join(ROOT, 'node_modules/.bin/tsx')
const WRITE = 'ghs_writable_token_0001'

const git = (...args: string[]): string =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim()

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter(entry => entry.isFile())
    .map(entry => relative(dir, join(entry.parentPath, entry.name)))
    .sort()
}

const out = join(mkdtempSync(join(tmpdir(), 'rc-release-tree-')), 'tree')
let dry: { status: number | null; stdout: string; stderr: string }
let refsBefore = ''
let statusBefore = ''
let github: GitHubStandIn
let providers: StandIn
beforeAll(async () => {
  refsBefore = git('for-each-ref')
  statusBefore = git('status', '--porcelain')
  dry = spawnSync(TSX, ['scripts/release.ts', 'tag', '--dry-run', '--out', out], {
    cwd: ROOT,
    encoding: 'utf8'
  })
  github = await startGitHubStandIn({ owner: OWNER, repo: REPO })
  github.addToken(WRITE, { login: 'github-actions[bot]', type: 'Bot', write: true })
  providers = await startProviderStandIn(call => ({ json: wireAnswer(call.schema) }))
}, 120_000)
afterAll(async () => {
  await github.close()
  await providers.close()
  rmSync(join(out, '..'), { recursive: true, force: true })
})

describe('the release tree of this repository', { timeout: 120_000 }, () => {
  it('is built by the dry run at most 1.2 MB gzipped, with no ref, object or file changed', () => {
    expect(dry.status, dry.stderr).toBe(0)
    const bytes = Number(/^release archive: (\d+) bytes/m.exec(dry.stdout)?.[1])
    expect(bytes).toBeGreaterThan(0)
    expect(bytes).toBeLessThanOrEqual(RELEASE_ARCHIVE_BUDGET)
    expect(dry.stdout).toContain('Dry run: nothing was tagged.')
    expect(git('for-each-ref')).toBe(refsBefore)
    expect(git('status', '--porcelain')).toBe(statusBefore)
    // The tree was written to the dry run's own object store, which is gone.
    const tree = /^The release tree ([0-9a-f]{40}) of /m.exec(dry.stdout)?.[1] ?? ''
    expect(tree).not.toBe('')
    expect(spawnSync('git', ['cat-file', '-e', tree], { cwd: ROOT }).status).toBe(1)
  })

  it('holds the actions, their bundles and the licences, and nothing else', () => {
    const files = filesUnder(out)
    expect(files.filter(f => !inReleaseTree(f))).toEqual([])
    expect(files).toEqual(expect.arrayContaining(['action.yml', 'LICENSE', 'dist/index.js']))
    expect(files).toEqual(expect.arrayContaining(['gates/action.yml', 'gates/dist/index.js']))
    expect(files).toEqual(expect.arrayContaining(['dist/licenses.txt', 'gates/dist/licenses.txt']))
    expect(files.some(f => f.startsWith('src/') || f.startsWith('dist/cli/'))).toBe(false)
    expect(files).not.toContain('README.md')
  })

  it('runs the action on its own: three providers judge, and the comment is posted', async () => {
    const repo = openPullRequest(
      github,
      1,
      { '.github/rubric.md': '---\ndimensions: false\n---\n## Criteria\n- tested: It is tested\n' },
      { 'feature.ts': 'export const feature = 1\n' }
    )
    const result = await runAction({
      script: join(out, 'dist/index.js'),
      workspace: repo.dir,
      eventName: 'pull_request',
      eventPath: pullRequestEvent(repo, { number: 1 }),
      apiUrl: github.url,
      inputs: {
        'github-token': WRITE,
        models: 'openai:gpt-5.4-mini, anthropic:claude-sonnet-4-6, google:gemini-3.5-flash'
      },
      env: {
        OPENAI_API_KEY: 'sk-test-release-0123456789',
        OPENAI_BASE_URL: providers.openaiBaseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test-release-0123456789',
        ANTHROPIC_BASE_URL: providers.anthropicBaseUrl,
        GOOGLE_GENERATIVE_AI_API_KEY: 'AIza-test-release-0123456789',
        GOOGLE_GENERATIVE_AI_BASE_URL: providers.googleBaseUrl
      }
    })
    expect(result.outputs.verdict, result.stdout).toBe('PASS')
    const report = JSON.parse(readFileSync(result.outputs.report ?? '', 'utf8')) as {
      judges: { judge: string; status: string; error: string | null }[]
    }
    // Each provider's SDK, a chunk of its own, was loaded from the release tree and answered.
    expect(
      report.judges.map(j => [j.judge.split(':')[0], j.status]).sort(),
      JSON.stringify(report.judges.map(j => j.error))
    ).toEqual([
      ['anthropic', 'ok'],
      ['google', 'ok'],
      ['openai', 'ok']
    ])
    const [comment] = github.comments.get(1) ?? []
    expect(comment?.body).toContain('### ✅ Rubric Council: PASS')
    expect(github.violations).toEqual([])
  })
})
