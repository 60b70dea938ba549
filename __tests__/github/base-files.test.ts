import { getOctokit } from '@actions/github'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { octokitPort } from '../../src/github/port.js'
import { readAnswer } from '../../src/github/base-files.js'
import { startGitHubStandIn, type GitHubStandIn } from '../helpers/github-standin.js'

/**
 * The base's rubric files and the pull request's head in one GraphQL request, and the REST reads
 * it stands for whenever GraphQL cannot say what they would: the rubric graded by must be the same
 * either way.
 */

const TOKEN = 'ghs_base_files_0001'
const BASE = '1111111111111111111111111111111111111111'
const HEAD = '2222222222222222222222222222222222222222'
const WHERE = {
  ref: 'refs/heads/main',
  number: 7,
  main: '.github/rubric.md',
  folder: '.github/rubrics'
}

let github: GitHubStandIn
beforeEach(async () => {
  github = await startGitHubStandIn()
  github.addToken(TOKEN, { login: 'github-actions[bot]', type: 'Bot', write: true })
  github.setBranch('main', BASE)
  github.setPullRequest(7, { number: 7, head: { sha: HEAD }, base: { sha: BASE, ref: 'main' } })
})
afterEach(async () => {
  await github.close()
})

function port() {
  return octokitPort(
    { owner: github.owner, repo: github.repo },
    { token: TOKEN, baseUrl: github.url, warn: () => undefined }
  )
}

const requests = (): string[] =>
  github.requests.map(
    r =>
      `${r.method} ${decodeURIComponent(r.path).replace(`/repos/${github.owner}/${github.repo}`, '')}`
  )

describe('the base files, read at once', () => {
  it('give the head, the main rubric and the folder’s rubrics in one request', async () => {
    github.setFile(BASE, '.github/rubric.md', 'main rubric\n')
    github.setFile(BASE, '.github/rubrics/b.md', 'b\n')
    github.setFile(BASE, '.github/rubrics/a.yml', 'a: 1\n')
    github.setFile(BASE, '.github/rubrics/deeper/c.md', 'not right in the folder\n')
    github.setFile(HEAD, '.github/rubrics/pr.md', 'the pull request’s own\n')
    const base = await port().baseFiles(WHERE)
    expect(base.head).toBe(HEAD)
    expect(await base.filesIn('.github/rubrics')).toEqual([
      '.github/rubrics/a.yml',
      '.github/rubrics/b.md'
    ])
    expect(await base.fileAt('.github/rubric.md')).toBe('main rubric\n')
    expect(await base.fileAt('.github/rubrics/b.md')).toBe('b\n')
    expect(requests()).toEqual(['POST /graphql'])
  })

  it('say a rubric the base does not have is not there, without asking again', async () => {
    github.setFile(BASE, 'README.md', 'no rubric\n')
    const base = await port().baseFiles(WHERE)
    expect(await base.fileAt('.github/rubric.md')).toBeUndefined()
    expect(await base.filesIn('.github/rubrics')).toEqual([])
    expect(requests()).toEqual(['POST /graphql'])
  })

  it('are read through REST when the GraphQL request fails, with the same answers', async () => {
    github.setFile(BASE, '.github/rubric.md', 'main rubric\n')
    github.setFile(BASE, '.github/rubrics/b.md', 'b\n')
    github.failNext(1, { status: 403 }, { method: 'POST', path: /^\/graphql$/ })
    const base = await port().baseFiles(WHERE)
    expect(base.head).toBe(HEAD)
    expect(await base.filesIn('.github/rubrics')).toEqual(['.github/rubrics/b.md'])
    expect(await base.fileAt('.github/rubric.md')).toBe('main rubric\n')
    expect(requests()).toEqual([
      'POST /graphql',
      'GET /pulls/7',
      'GET /contents/.github/rubrics',
      'GET /contents/.github/rubric.md'
    ])
  })

  it('read a binary rubric through REST, which refuses it as the review always did', async () => {
    github.setFile(BASE, '.github/rubric.md', Buffer.from([0x2d, 0x00, 0xff, 0x0a]))
    const base = await port().baseFiles(WHERE)
    await expect(base.fileAt('.github/rubric.md')).rejects.toThrow(/encoded data was not valid/)
    expect(requests()).toEqual(['POST /graphql', 'GET /contents/.github/rubric.md'])
  })
})

describe('the calibration record beside the rubric', () => {
  const where = { ...WHERE, record: '.github/rubric-calibration.json' }

  it('is read in the same request as the rubric', async () => {
    github.setFile(BASE, '.github/rubric.md', 'main rubric\n')
    github.setFile(BASE, '.github/rubric-calibration.json', '{"record": 1}\n')
    const base = await port().baseFiles(where)
    expect(await base.fileAt('.github/rubric-calibration.json')).toBe('{"record": 1}\n')
    expect(requests()).toEqual(['POST /graphql'])
  })

  it('that is not there is known to be absent without another request', async () => {
    github.setFile(BASE, '.github/rubric.md', 'main rubric\n')
    const base = await port().baseFiles(where)
    expect(await base.fileAt('.github/rubric-calibration.json')).toBeUndefined()
    expect(requests()).toEqual(['POST /graphql'])
  })
})

describe('readAnswer', () => {
  const blob = (text: string) => ({
    text,
    isBinary: false,
    isTruncated: false,
    byteSize: Buffer.byteLength(text)
  })
  const answer = (main: object | null, mode = 0o100644, folder: object[] = []) => ({
    repository: {
      pullRequest: { headRefOid: HEAD },
      parent: { entries: [{ name: 'rubric.md', type: 'blob', mode }] },
      main,
      folder: { entries: folder }
    }
  })

  it('takes a regular file’s whole UTF-8 text', () => {
    const read = readAnswer(answer(blob('ok ✓\n')), WHERE)
    expect(read?.files.get('.github/rubric.md')).toEqual({ text: 'ok ✓\n' })
  })

  it('asks REST for a link (the contents API follows one inside the repository)', () => {
    const read = readAnswer(answer(blob('../elsewhere.md'), 0o120000), WHERE)
    expect(read?.files.get('.github/rubric.md')).toBe('ask')
  })

  it('asks REST for text cut short, called binary, or whose bytes GraphQL changed', () => {
    for (const main of [
      { ...blob('long'), isTruncated: true },
      { ...blob('x'), isBinary: true, text: null },
      { ...blob('\uFFFD'), byteSize: 1 }
    ]) {
      expect(readAnswer(answer(main), WHERE)?.files.get('.github/rubric.md')).toBe('ask')
    }
  })

  it('lists the folder as the contents API does: its regular files, not its links or folders', () => {
    const read = readAnswer(
      answer(blob('m'), 0o100644, [
        { name: 'b.md', type: 'blob', mode: 0o100755, object: blob('b') },
        { name: 'a.md', type: 'blob', mode: 0o100644, object: blob('a') },
        { name: 'link.md', type: 'blob', mode: 0o120000, object: blob('a.md') },
        { name: 'sub', type: 'tree', mode: 0o040000, object: null },
        { name: 'module', type: 'commit', mode: 0o160000, object: null }
      ]),
      WHERE
    )
    expect(read?.folder).toEqual(['.github/rubrics/a.md', '.github/rubrics/b.md'])
  })

  it('is unusable without a repository', () => {
    expect(readAnswer({ repository: null }, WHERE)).toBeUndefined()
    expect(readAnswer(undefined, WHERE)).toBeUndefined()
  })
})

describe('the stand-in’s GraphQL endpoint, as strict as GitHub’s', () => {
  const post = (body: string, token: string | null = TOKEN) =>
    fetch(`${github.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token !== null && { authorization: `bearer ${token}` })
      },
      body
    })

  it('requires a token', async () => {
    const answer = await post('{"query":"{ viewer { login } }"}', null)
    expect(answer.status).toBe(401)
  })

  it('answers a body that is not JSON with 400', async () => {
    expect((await post('query {')).status).toBe(400)
  })

  it('refuses a field GitHub’s schema does not have, answering no data', async () => {
    const answer = await post(
      JSON.stringify({
        query:
          '{ repository(owner: "o", name: "r") { object(expression: "main:a") { ... on Blob { content } } } }'
      })
    )
    expect(answer.status).toBe(200)
    const body = (await answer.json()) as { data?: unknown; errors: { message: string }[] }
    expect(body.data).toBeUndefined()
    expect(body.errors[0]?.message).toMatch(/Cannot query field "content" on type "Blob"/)
  })

  it('answers a pull request that does not exist with null and a NOT_FOUND error', async () => {
    const client = getOctokit(TOKEN, { baseUrl: github.url })
    const error = (await client
      .graphql(
        'query($o: String!, $n: String!) { repository(owner: $o, name: $n) { pullRequest(number: 99) { headRefOid } } }',
        { o: github.owner, n: github.repo }
      )
      .catch((e: unknown) => e)) as { errors?: { type?: string }[]; data?: unknown }
    expect(error.errors?.[0]?.type).toBe('NOT_FOUND')
    expect(error.data).toEqual({ repository: { pullRequest: null } })
  })

  it('answers FORBIDDEN for what the token may not read', async () => {
    github.addToken('ghs_no_pulls', {
      login: 'github-actions[bot]',
      type: 'Bot',
      permissions: { contents: 'read' }
    })
    const client = getOctokit('ghs_no_pulls', { baseUrl: github.url })
    const error = (await client
      .graphql(
        'query($o: String!, $n: String!) { repository(owner: $o, name: $n) { pullRequest(number: 7) { headRefOid } } }',
        { o: github.owner, n: github.repo }
      )
      .catch((e: unknown) => e)) as { errors?: { type?: string; message?: string }[] }
    expect(error.errors?.[0]).toMatchObject({
      type: 'FORBIDDEN',
      message: 'Resource not accessible by integration'
    })
  })
})
