// Writes .local/event.json: a pull_request event for the current branch (base = its merge base
// with main, head = HEAD), so `npm run local-action` can review local commits like a PR.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'

const git = (...args: string[]): string => execFileSync('git', args, { encoding: 'utf8' }).trim()
const baseRef = process.argv[2] ?? process.env.BASE_REF ?? 'main'
const head = git('rev-parse', 'HEAD')
const base = git('merge-base', baseRef, head)
const [title = 'Local changes', ...body] = git('log', '-1', '--format=%s%n%b').split('\n')

mkdirSync('.local', { recursive: true })
writeFileSync(
  '.local/event.json',
  JSON.stringify(
    {
      action: 'synchronize',
      number: 1,
      pull_request: {
        number: 1,
        title,
        body: body.join('\n').trim(),
        base: { sha: base },
        head: { sha: head }
      }
    },
    null,
    2
  )
)
console.log(
  `.local/event.json: a pull request from ${base.slice(0, 7)} (merge base with ${baseRef}) to ${head.slice(0, 7)}`
)
