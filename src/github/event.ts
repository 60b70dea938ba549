import { readFile } from 'node:fs/promises'
import { isRecord } from '../rubric/zod-issues.js'

/** What the evaluation needs from a pull request event. */
export interface PullRequestContext {
  readonly number: number
  readonly title: string
  readonly body: string
  readonly baseSha: string
  readonly headSha: string
}

/**
 * The pull request of the event the workflow runs for (GITHUB_EVENT_PATH), or undefined when the
 * event has none. Fields are read defensively: the payload is data, not a contract.
 */
export async function readPullRequest(
  eventPath: string | undefined
): Promise<PullRequestContext | undefined> {
  if (eventPath === undefined || eventPath === '') return undefined
  let payload: unknown
  try {
    payload = JSON.parse(await readFile(eventPath, 'utf8'))
  } catch {
    return undefined
  }
  const pr = isRecord(payload) ? payload.pull_request : undefined
  if (!isRecord(pr)) return undefined
  const base = isRecord(pr.base) ? pr.base.sha : undefined
  const head = isRecord(pr.head) ? pr.head.sha : undefined
  if (typeof base !== 'string' || typeof head !== 'string' || typeof pr.number !== 'number')
    return undefined
  return {
    number: pr.number,
    title: typeof pr.title === 'string' ? pr.title : '',
    body: typeof pr.body === 'string' ? pr.body : '',
    baseSha: base,
    headSha: head
  }
}
