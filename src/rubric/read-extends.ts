import { failed, ok, type Result } from '../util/result.js'
import type { RubricIssue } from './errors.js'
import { parseRubric } from './parse.js'
import { EXTENDS_PATTERN, MAX_EXTENDS_DEPTH } from './schema.js'
import type { RubricText, RubricTextResult } from './text.js'

/** Where a rubric named by `extends` is: a file of another repository at a git ref. */
export interface UpstreamFile {
  readonly owner: string
  readonly repo: string
  readonly path: string
  /** `refs/tags/<tag>`, or a full commit SHA: never a branch, which moves under the rubric. */
  readonly ref: string
}

/** Why a file could not be read: the HTTP status GitHub answered with (none: no answer). */
export interface UnreadFile {
  readonly status?: number
  readonly message: string
}

/** Reads a file of another repository through the API; absent when there is no token to read with. */
export type ReadUpstream = (file: UpstreamFile) => Promise<Result<string, UnreadFile>>

/** The file `owner/repo/path@ref` names; a ref of 40 hex digits is a commit, any other a tag. */
export function upstreamFile(spec: string): UpstreamFile | undefined {
  const match = EXTENDS_PATTERN.exec(spec)
  if (!match) return undefined
  const [, owner = '', repo = '', path = '', ref = ''] = match
  return { owner, repo, path, ref: /^[0-9a-f]{40}$/i.test(ref) ? ref : `refs/tags/${ref}` }
}

/**
 * The rubric with the text of every rubric its `extends` names, at any depth, read through
 * `read` (the API, with the job's token): never from the pull request, whose checkout this is
 * not. What cannot be read is a problem at the `extends` line that names it, saying what access
 * is missing; cycles and depth are left to `parseRubric`, which reports them without reading more.
 */
export async function readExtends(
  rubric: RubricText,
  read: ReadUpstream | undefined
): Promise<RubricTextResult> {
  const upstream: Record<string, string> = {}
  const issues: RubricIssue[] = []
  const visit = async (text: string, path: string, chain: readonly string[]): Promise<void> => {
    // Its own problems are reported when the merged rubric is parsed.
    const parsed = parseRubric({ text, path }, 'as written')
    if (!parsed.ok) return
    for (const named of parsed.value.extends) {
      const { spec } = named
      if (chain.includes(spec) || chain.length >= MAX_EXTENDS_DEPTH) continue
      if (Object.hasOwn(upstream, spec)) continue
      const at = (message: string): void => {
        issues.push({
          file: path,
          line: named.line,
          ...(named.column !== undefined && { column: named.column }),
          rule: 'extends',
          message: `extends "${spec}": ${message}`
        })
      }
      const file = upstreamFile(spec)
      if (file === undefined) continue
      if (read === undefined) {
        at(
          'no GitHub token to read it with: give the action a github-token, or set GITHUB_TOKEN or GH_TOKEN for the CLI (GITHUB_API_URL for GitHub Enterprise Server)'
        )
        continue
      }
      const got = await read(file)
      if (!got.ok) {
        at(unreadSentence(file, got.problem))
        continue
      }
      upstream[spec] = got.value
      await visit(got.value, spec, [...chain, spec])
    }
  }
  await visit(rubric.text, rubric.path, [])
  if (issues.length > 0) return failed({ source: rubric, issues, text: rubric.text })
  return ok(Object.keys(upstream).length === 0 ? rubric : { ...rubric, upstream })
}

/** Why a rubric of another repository was not read, naming the access the token lacks. */
function unreadSentence(file: UpstreamFile, unread: UnreadFile): string {
  const repository = `${file.owner}/${file.repo}`
  const at = file.ref.startsWith('refs/tags/')
    ? `the tag ${file.ref.slice('refs/tags/'.length)}`
    : `the commit ${file.ref}`
  const access = `the job's GITHUB_TOKEN reads only its own repository, so for a private ${repository} give the action a token with contents: read on ${repository} (a GitHub App's installation token, or a fine-grained token) as github-token`
  if (unread.status === 404) {
    return `${repository} has no file ${file.path} at ${at} (a ref must be a tag or a full commit SHA; a branch is not read), or the token cannot see ${repository}: ${access}`
  }
  if (unread.status === 403) {
    return `the token may not read ${repository} (HTTP 403: ${unread.message}); ${access}`
  }
  return `${repository} could not be read (${unread.message})`
}
