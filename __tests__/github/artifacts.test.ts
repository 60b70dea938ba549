import { deflateRawSync } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ActionsError, runJobs } from '../../src/github/actions-runs.js'
import { downloadArtifactFile, findArtifact } from '../../src/github/artifacts.js'
import { createGitHub, type GitHub } from '../../src/github/client.js'
import { ZipError } from '../../src/github/zip-error.js'
import { BLOB_PATH, startGitHubStandIn, type GitHubStandIn } from '../helpers/github-standin.js'
import { zeroBomb, zip } from '../helpers/zip.js'

/** GITHUB_TOKEN with `actions: read` (and nothing to write), as the council job gets it. */
const READER = 'ghs_actions_reader'
/** GITHUB_TOKEN of a workflow whose `permissions:` leave `actions: read` out. */
const NO_ACTIONS = 'ghs_no_actions'
const BOT = { login: 'github-actions[bot]', type: 'Bot' } as const
const SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821'
const RUN = 7_654_321_001
const RESULTS = '{"gates":[{"name":"tests","exitCode":0}]}'

/**
 * A zip as actions/upload-artifact@v4 writes it (archiver 7, zlib level 6): deflated entries with
 * data descriptors, names without the UTF-8 flag, an explicit directory entry. Made with
 * `archiver.create('zip', { zlib: { level: 6 } })` from `gates.json`, `sub/log.txt` ("hello\n")
 * and `emptydir/`.
 */
const UPLOAD_ARTIFACT_ZIP = Buffer.from(
  'UEsDBAoAAAAAAHWUd10AAAAAAAAAAAAAAAAJAAAAZW1wdHlkaXIvUEsDBBQACAAIAHWUd10AAAAAAAAAAAAAAAAKAAAAZ2F0' +
    'ZXMuanNvbqtWSk8sSS1WsoquVspLzE1VslIqSS0uUdJRSq3ILHHOT0lVsjKoja3lAgBQSwcIbDI9OCsAAAApAAAAUEsDBBQA' +
    'CAAIAHWUd10AAAAAAAAAAAAAAAALAAAAc3ViL2xvZy50eHTLSM3JyecCAFBLBwggMDo2CAAAAAYAAABQSwECLQMKAAAAAAB1' +
    'lHddAAAAAAAAAAAAAAAACQAAAAAAAAAAABAA7UEAAAAAZW1wdHlkaXIvUEsBAi0DFAAIAAgAdZR3XWwyPTgrAAAAKQAAAAoA' +
    'AAAAAAAAAAAgAKSBJwAAAGdhdGVzLmpzb25QSwECLQMUAAgACAB1lHddIDA6NggAAAAGAAAACwAAAAAAAAAAACAApIGKAAAA' +
    'c3ViL2xvZy50eHRQSwUGAAAAAAMAAwCoAAAAywAAAAAA',
  'base64'
)

let standIn: GitHubStandIn
const warnings: string[] = []

beforeEach(async () => {
  standIn = await startGitHubStandIn()
  standIn.addToken(READER, { ...BOT, write: false })
  standIn.addToken(NO_ACTIONS, { ...BOT, write: true, actions: 'none' })
  warnings.length = 0
})

afterEach(async () => {
  // Whatever a test did, only requests GitHub's description allows were made.
  expect(standIn.violations).toEqual([])
  await standIn.close()
})

function github(token = READER): GitHub {
  return createGitHub(token, standIn.url, message => warnings.push(message))
}

function repo(): { owner: string; repo: string } {
  return { owner: standIn.owner, repo: standIn.repo }
}

/** The error the promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    if (error instanceof Error) return error
    throw new Error(`rejected with a non-Error: ${String(error)}`, { cause: error })
  }
  throw new Error('it succeeded')
}

function apiRequests(): { method: string; path: string; query: Record<string, string> }[] {
  return standIn.requests
    .filter(r => !r.path.startsWith(BLOB_PATH))
    .map(r => ({ method: r.method, path: r.path, query: { ...r.query } }))
}

describe('runJobs', () => {
  it("reads every page of the latest attempt's jobs", async () => {
    const jobs = Array.from({ length: 150 }, (_, i) => ({
      name: `gates (${i})`,
      conclusion: i === 149 ? ('failure' as const) : ('success' as const)
    }))
    standIn.setWorkflowRun({ id: RUN, head_sha: SHA })
    standIn.setRunJobs(RUN, jobs)

    const read = await runJobs(github(), { ...repo(), runId: RUN })

    expect(read).toHaveLength(150)
    expect(read[0]).toEqual({ name: 'gates (0)', status: 'completed', conclusion: 'success' })
    expect(read[149]).toEqual({ name: 'gates (149)', status: 'completed', conclusion: 'failure' })
    expect(apiRequests()).toEqual([
      {
        method: 'GET',
        path: `/repos/octo-org/octo-repo/actions/runs/${RUN}/jobs`,
        query: { filter: 'latest', per_page: '100' }
      },
      {
        method: 'GET',
        path: `/repositories/${standIn.repositoryId}/actions/runs/${RUN}/jobs`,
        query: { filter: 'latest', per_page: '100', page: '2' }
      }
    ])
  })

  it('reads the latest attempt by default and a given attempt when asked', async () => {
    standIn.setWorkflowRun({ id: RUN, head_sha: SHA, run_attempt: 2 })
    standIn.setRunJobs(RUN, [{ name: 'gates', conclusion: 'failure' }], 1)
    standIn.setRunJobs(RUN, [{ name: 'gates', status: 'in_progress' }], 2)

    const latest = await runJobs(github(), { ...repo(), runId: RUN })
    const first = await runJobs(github(), { ...repo(), runId: RUN, attempt: 1 })

    expect(latest).toEqual([{ name: 'gates', status: 'in_progress', conclusion: null }])
    expect(first).toEqual([{ name: 'gates', status: 'completed', conclusion: 'failure' }])
    expect(apiRequests()[1]).toEqual({
      method: 'GET',
      path: `/repos/octo-org/octo-repo/actions/runs/${RUN}/attempts/1/jobs`,
      query: { per_page: '100' }
    })
  })

  it('names the attempt that does not exist, and the permission a 403 lacks', async () => {
    standIn.setWorkflowRun({ id: RUN, head_sha: SHA })
    standIn.setRunJobs(RUN, [{ name: 'gates' }])

    const missing = await failure(runJobs(github(), { ...repo(), runId: RUN, attempt: 3 }))
    const refused = await failure(runJobs(github(NO_ACTIONS), { ...repo(), runId: RUN }))

    expect(missing).toMatchObject({ problem: 'not-found', status: 404 })
    expect(missing.message).toMatch(/^the jobs of attempt 3 of workflow run \d+ was not found/)
    expect(refused).toMatchObject({ problem: 'permission', status: 403 })
    expect(refused.message).toContain('`actions: read`')
  })

  it('passes other failures on as they are', async () => {
    standIn.failNext(1, { status: 401 })

    const error = await failure(runJobs(github(), { ...repo(), runId: RUN }))

    expect(error).not.toBeInstanceOf(ActionsError)
    expect(error).toMatchObject({ status: 401 })
  })
})

describe('findArtifact', () => {
  it('finds the artifact by name, asking GitHub for that name only', async () => {
    standIn.setWorkflowRun({ id: RUN, head_sha: SHA })
    const results = zip([{ name: 'gates.json', data: RESULTS }])
    const added = standIn.addArtifact(RUN, 'rubric-council-gates', results)
    standIn.addArtifact(RUN, 'coverage', zip([{ name: 'lcov.info', data: 'TN:' }]))
    standIn.addArtifact(RUN + 1, 'rubric-council-gates', results)

    const found = await findArtifact(github(), {
      ...repo(),
      runId: RUN,
      name: 'rubric-council-gates'
    })

    expect(found).toEqual({
      id: added.id,
      name: 'rubric-council-gates',
      sizeInBytes: results.length,
      expired: false
    })
    expect(apiRequests()).toEqual([
      {
        method: 'GET',
        path: `/repos/octo-org/octo-repo/actions/runs/${RUN}/artifacts`,
        query: { name: 'rubric-council-gates', per_page: '100' }
      }
    ])
  })

  it('is undefined when the run has no artifact of that name', async () => {
    standIn.addArtifact(RUN, 'coverage', zip([{ name: 'lcov.info', data: 'TN:' }]))

    expect(await findArtifact(github(), { ...repo(), runId: RUN, name: 'gates' })).toBeUndefined()
  })

  it('takes the newest of several by creation time, not by id or order', async () => {
    const newer = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '1' }]), {
      createdAt: '2025-03-01T10:00:05Z'
    })
    standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '2' }]), {
      createdAt: '2025-03-01T10:00:00Z'
    })
    standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '3' }]), {
      createdAt: '2025-03-01T09:00:00Z'
    })

    const found = await findArtifact(github(), { ...repo(), runId: RUN, name: 'gates' })

    expect(found?.id).toBe(newer.id)
  })

  it('skips a newer expired artifact for an older one that is not, on any page', async () => {
    // 130 artifacts, newest first: the only one not expired is the oldest, on the second page.
    const kept = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: RESULTS }]))
    for (let i = 0; i < 129; i++) {
      standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '{}' }]), {
        expired: true
      })
    }

    const found = await findArtifact(github(), { ...repo(), runId: RUN, name: 'gates' })

    expect(found).toMatchObject({ id: kept.id, expired: false })
    expect(apiRequests().map(r => r.query.page)).toEqual([undefined, '2'])
  })

  it('returns the newest expired artifact when every one has expired', async () => {
    standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '{}' }]), { expired: true })
    const newest = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '{}' }]), {
      expired: true
    })

    const found = await findArtifact(github(), { ...repo(), runId: RUN, name: 'gates' })

    expect(found).toMatchObject({ id: newest.id, expired: true })
  })

  it('names the missing `actions: read` permission on a 403', async () => {
    const error = await failure(
      findArtifact(github(NO_ACTIONS), { ...repo(), runId: RUN, name: 'gates' })
    )

    expect(error).toMatchObject({ problem: 'permission', status: 403 })
    expect(error.message).toContain(`the artifacts of workflow run ${RUN}`)
    expect(error.message).toContain('`actions: read`')
  })
})

describe('downloadArtifactFile', () => {
  function download(
    artifactId: number,
    file = 'gates.json',
    more: { maxBytes?: number; maxDownloadBytes?: number; maxEntries?: number; token?: string } = {}
  ): Promise<Buffer> {
    return downloadArtifactFile(github(more.token), {
      ...repo(),
      artifactId,
      file,
      maxBytes: more.maxBytes ?? 64 * 1024,
      ...(more.maxDownloadBytes !== undefined && { maxDownloadBytes: more.maxDownloadBytes }),
      ...(more.maxEntries !== undefined && { maxEntries: more.maxEntries })
    })
  }

  it('reads one file, deflated or stored, out of an artifact with several', async () => {
    const artifact = standIn.addArtifact(
      RUN,
      'gates',
      zip([
        { name: 'logs/tests.txt', data: 'ok\n'.repeat(1000) },
        { name: 'gates.json', data: RESULTS, dataDescriptor: true },
        { name: 'notes.txt', data: 'stored as it is', method: 'store' }
      ])
    )

    expect((await download(artifact.id)).toString()).toBe(RESULTS)
    expect((await download(artifact.id, 'notes.txt')).toString()).toBe('stored as it is')
    expect((await download(artifact.id, 'logs/tests.txt')).toString()).toBe('ok\n'.repeat(1000))
  })

  it('reads the zip actions/upload-artifact writes', async () => {
    const artifact = standIn.addArtifact(RUN, 'gates', UPLOAD_ARTIFACT_ZIP)

    expect(JSON.parse((await download(artifact.id)).toString())).toEqual({
      gates: [{ name: 'test', exitCode: 0 }]
    })
    expect((await download(artifact.id, 'sub/log.txt')).toString()).toBe('hello\n')
  })

  it('fetches the redirect target itself, with no Authorization header', async () => {
    const artifact = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: RESULTS }]))

    await download(artifact.id)

    const [api, blob] = standIn.requests
    expect(api).toMatchObject({
      path: `/repos/octo-org/octo-repo/actions/artifacts/${artifact.id}/zip`,
      status: 302,
      token: READER
    })
    expect(blob?.path.startsWith(`${BLOB_PATH}actions-results/${artifact.id}/`)).toBe(true)
    expect(blob).toMatchObject({ status: 200, authorization: undefined })
    expect(standIn.requests).toHaveLength(2)
  })

  it('(the control: Octokit left to follow the redirect sends the token to the blob)', async () => {
    // The blob is on the API's origin here, as it can be on GitHub Enterprise Server, and the
    // fetch standard keeps Authorization on a same-origin redirect: why downloadArtifactFile
    // must not let Octokit follow it.
    const artifact = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: RESULTS }]))

    await github().rest.actions.downloadArtifact({
      ...repo(),
      artifact_id: artifact.id,
      archive_format: 'zip'
    })

    expect(standIn.requests[1]).toMatchObject({ status: 200, authorization: `token ${READER}` })
  })

  it('says an expired artifact has expired (410)', async () => {
    const artifact = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '{}' }]), {
      expired: true
    })

    const error = await failure(download(artifact.id))

    expect(error).toBeInstanceOf(ActionsError)
    expect(error).toMatchObject({ problem: 'expired', status: 410 })
    expect(error.message).toBe(
      `artifact ${artifact.id} in octo-org/octo-repo has expired (410): GitHub deleted its files ` +
        'after the retention period; re-run the workflow that made it'
    )
  })

  it('says a missing artifact is missing (404)', async () => {
    const error = await failure(download(404_404))

    expect(error).toMatchObject({ problem: 'not-found', status: 404 })
    expect(error.message).toContain('artifact 404404 was not found in octo-org/octo-repo')
  })

  it('names the missing `actions: read` permission, and never reaches the blob', async () => {
    const artifact = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '{}' }]))

    const error = await failure(download(artifact.id, 'gates.json', { token: NO_ACTIONS }))

    expect(error).toMatchObject({ problem: 'permission', status: 403 })
    expect(error.message).toContain('Resource not accessible by integration')
    expect(error.message).toContain('`actions: read`')
    expect(standIn.requests.map(r => r.path.startsWith(BLOB_PATH))).toEqual([false])
  })

  it('refuses an answer that is not a redirect', async () => {
    standIn.failNext(1, { status: 200, body: { message: 'here you are' } })

    const error = await failure(download(1))

    expect(error).toMatchObject({ problem: 'download', status: 200 })
    expect(error.message).toBe(
      'GitHub answered the download of artifact 1 with 200 and no Location, not a redirect to its zip'
    )
  })

  it("says the blob storage refused, naming its host and never the signed URL's secret", async () => {
    const artifact = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '{}' }]))
    standIn.failNext(
      1,
      { status: 403, body: 'AuthenticationFailed' },
      {
        method: 'GET',
        path: /^\/_blob\//
      }
    )

    const error = await failure(download(artifact.id))

    const host = new URL(standIn.url).host
    expect(error).toMatchObject({ problem: 'download', status: 403 })
    expect(error.message).toBe(`could not download artifact ${artifact.id}: ${host} answered 403`)
  })

  it('refuses a zip bigger than the download cap, by its Content-Length', async () => {
    const big = zip([
      { name: 'gates.json', data: RESULTS },
      { name: 'noise', data: Buffer.alloc(4096, 7), method: 'store' }
    ])
    const artifact = standIn.addArtifact(RUN, 'gates', big)

    const error = await failure(download(artifact.id, 'gates.json', { maxDownloadBytes: 4096 }))

    expect(error).toMatchObject({ problem: 'too-large' })
    expect(error.message).toBe(
      `artifact ${artifact.id} is ${big.length} bytes to download, more than the 4096 allowed: ` +
        'the gates job uploads more than its results'
    )
  })

  it('refuses a zip bigger than the download cap while reading it, when no length is given', async () => {
    const big = zip([
      { name: 'gates.json', data: RESULTS },
      { name: 'noise', data: Buffer.alloc(300_000, 7), method: 'store' }
    ])
    const artifact = standIn.addArtifact(RUN, 'gates', big, { chunked: true })

    const error = await failure(download(artifact.id, 'gates.json', { maxDownloadBytes: 100_000 }))

    expect(error).toMatchObject({ problem: 'too-large' })
    expect(error.message).toContain('is more than 100000 bytes to download')
  })

  it('gives up on a blob storage that does not answer in time', async () => {
    const artifact = standIn.addArtifact(RUN, 'gates', zip([{ name: 'gates.json', data: '{}' }]))
    const silent: typeof globalThis.fetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => {
          reject(init.signal?.reason as Error)
        })
      })

    const error = await failure(
      downloadArtifactFile(github(), {
        ...repo(),
        artifactId: artifact.id,
        file: 'gates.json',
        maxBytes: 1024,
        timeoutMs: 50,
        fetch: silent
      })
    )

    expect(error).toMatchObject({ problem: 'download' })
    expect(error.message).toBe(
      `could not download artifact ${artifact.id} from ${new URL(standIn.url).host}: timed out`
    )
  })
})

/** Hostile zips, as the gates job could upload them: each refused with a ZipError that says why. */
describe('downloadArtifactFile refuses a hostile zip', () => {
  const results = { name: 'gates.json', data: RESULTS } as const
  const cases: readonly {
    readonly what: string
    readonly zip: () => Buffer
    readonly problem: ZipError['problem']
    readonly message: string | RegExp
    readonly maxEntries?: number
  }[] = [
    {
      what: 'a file that is not a zip',
      zip: () => Buffer.from('{"gates": "trust me, they all passed"}'),
      problem: 'malformed',
      message: 'not a zip, or one cut short: no end-of-central-directory record at its end'
    },
    {
      what: 'a zip cut short',
      zip: () => zip([results]).subarray(0, -5),
      problem: 'malformed',
      message: 'not a zip, or one cut short: no end-of-central-directory record at its end'
    },
    {
      what: 'a zip whose data is cut out',
      zip: () => {
        const whole = zip([results])
        return Buffer.concat([whole.subarray(0, 40), whole.subarray(60)])
      },
      problem: 'malformed',
      message: /central directory \(\d+ bytes at \d+\) does not end where its end record starts/
    },
    {
      what: 'a bomb that declares its gibibyte',
      zip: () =>
        zip([
          { name: 'gates.json', raw: zeroBomb(1024 ** 3), lie: { uncompressedSize: 1024 ** 3 } }
        ]),
      problem: 'too-large',
      message: `the zip's entry "gates.json" says it holds 1073741824 bytes, more than the 65536 allowed`
    },
    {
      what: 'a bomb that declares 100 bytes',
      zip: () =>
        zip([{ name: 'gates.json', raw: zeroBomb(1024 ** 3), lie: { uncompressedSize: 100 } }]),
      problem: 'too-large',
      message: `the zip's entry "gates.json" inflates to more than the 100 bytes it declares`
    },
    {
      what: 'an entry that declares more than it holds',
      zip: () => zip([{ ...results, lie: { uncompressedSize: RESULTS.length + 1 } }]),
      problem: 'malformed',
      message: `the zip's entry "gates.json" says it holds ${RESULTS.length + 1} bytes and holds ${RESULTS.length}`
    },
    {
      what: 'a stored entry whose sizes disagree',
      zip: () => zip([{ ...results, method: 'store', lie: { uncompressedSize: 3 } }]),
      problem: 'malformed',
      message: /is stored, yet says it is \d+ bytes compressed and 3 not/
    },
    {
      what: 'an entry whose compressed size reaches into the central directory',
      zip: () => zip([{ ...results, lie: { compressedSize: 5000 } }]),
      problem: 'malformed',
      message: `the zip's entry "gates.json" runs into its central directory`
    },
    {
      what: 'bytes hidden after the deflate stream',
      zip: () =>
        zip([
          {
            name: 'gates.json',
            data: RESULTS,
            raw: Buffer.concat([deflateRawSync(RESULTS), Buffer.from('hidden')])
          }
        ]),
      problem: 'malformed',
      message: `the zip's entry "gates.json" has 6 bytes after its deflate stream ends`
    },
    {
      what: 'data that is not deflate',
      zip: () => zip([{ name: 'gates.json', data: RESULTS, raw: Buffer.from([0xff, 0xff, 0xff]) }]),
      problem: 'malformed',
      message: /the zip's entry "gates.json" is not valid deflate data \(invalid block type\)/
    },
    {
      what: 'a wrong CRC-32',
      zip: () => zip([{ ...results, lie: { crc: 0x12345678 } }]),
      problem: 'crc-mismatch',
      message:
        /the zip's entry "gates.json" is corrupt or altered: CRC-32 [0-9a-f]{8}, declared 12345678/
    },
    {
      what: 'a local header that contradicts the central directory',
      zip: () => zip([{ ...results, localLie: { crc: 1 } }]),
      problem: 'malformed',
      message: /local header whose CRC or sizes contradict its central directory entry/
    },
    {
      what: 'a local header with another name',
      zip: () => zip([{ ...results, localLie: { name: 'other.json' } }]),
      problem: 'malformed',
      message: `the zip's entry "gates.json" is named "other.json" in its local header`
    },
    {
      what: 'a name climbing out with ../',
      zip: () => zip([results, { name: '../../.github/workflows/ci.yml', data: 'x' }]),
      problem: 'unsafe-name',
      message:
        'the zip holds an entry named "../../.github/workflows/ci.yml", which climbs out of the archive with ..'
    },
    {
      what: 'an absolute name',
      zip: () => zip([results, { name: '/etc/passwd', data: 'x' }]),
      problem: 'unsafe-name',
      message: 'the zip holds an entry named "/etc/passwd", which is absolute'
    },
    {
      what: 'a Windows path',
      zip: () => zip([results, { name: '..\\gates.json', data: 'x' }]),
      problem: 'unsafe-name',
      message: 'the zip holds an entry named "..\\\\gates.json", which holds a backslash'
    },
    {
      what: 'two entries of one name',
      zip: () => zip([results, { name: 'gates.json', data: '{"gates":[]}' }]),
      problem: 'duplicate-name',
      message: 'the zip holds two entries named "gates.json": which is meant is ambiguous'
    },
    {
      what: 'an encrypted entry',
      zip: () => zip([{ ...results, lie: { flags: 0x0001 } }]),
      problem: 'unsupported',
      message: `the zip's entry "gates.json" is encrypted, which is not accepted`
    },
    {
      what: 'a zip64 entry',
      zip: () => zip([{ ...results, lie: { uncompressedSize: 0xffffffff } }]),
      problem: 'unsupported',
      message: `the zip's entry "gates.json" is zip64, which is not accepted`
    },
    {
      what: 'a zip64 extra field',
      zip: () => zip([{ ...results, extra: Buffer.from([1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }]),
      problem: 'unsupported',
      message: `the zip's entry "gates.json" is zip64, which is not accepted`
    },
    {
      what: 'a zip64 archive',
      zip: () => zip([results], { zip64Locator: true }),
      problem: 'unsupported',
      message: 'the zip is a zip64 archive, which is not accepted'
    },
    {
      what: 'a zip spanning disks',
      zip: () => zip([results], { end: { disk: 1 } }),
      problem: 'unsupported',
      message: 'the zip spans several disks, which is not accepted'
    },
    {
      what: 'a compression method other than deflate',
      zip: () => zip([{ ...results, lie: { methodId: 12 } }]),
      problem: 'unsupported',
      message: /uses compression method 12; only stored \(0\) and deflate \(8\) are accepted/
    },
    {
      what: 'more entries than allowed',
      zip: () =>
        zip([results, ...Array.from({ length: 10 }, (_, i) => ({ name: `f${i}`, data: 'x' }))]),
      maxEntries: 10,
      problem: 'too-large',
      message: 'the zip holds 11 entries, more than the 10 allowed'
    },
    {
      what: 'an end record that counts fewer entries than there are',
      zip: () => zip([results, { name: 'f', data: 'x' }], { end: { entries: 1 } }),
      problem: 'malformed',
      message: "the zip's central directory holds more than the 1 entries its end record counts"
    },
    {
      what: 'entries that overlap',
      zip: () => zip([results, { name: 'other', data: 'x', lie: { localOffset: 0 } }]),
      problem: 'malformed',
      message: `the zip's entries "gates.json" and "other" overlap`
    },
    {
      what: 'a second end record in the comment',
      zip: () => {
        const inner = zip([{ name: 'gates.json', data: '{"gates":"forged"}' }])
        return zip([results], { comment: inner })
      },
      problem: 'malformed',
      message:
        'the zip has more than one end-of-central-directory record: which is meant is ambiguous'
    },
    {
      what: 'no such entry',
      zip: () => zip([{ name: 'results.json', data: RESULTS }]),
      problem: 'missing',
      message: 'the zip has no entry "gates.json" (it holds "results.json")'
    }
  ]

  it.each(cases)('$what', async ({ zip: made, problem, message, maxEntries }) => {
    const artifact = standIn.addArtifact(RUN, 'gates', made())

    const error = await failure(
      downloadArtifactFile(github(), {
        ...repo(),
        artifactId: artifact.id,
        file: 'gates.json',
        maxBytes: 64 * 1024,
        maxDownloadBytes: 4 * 1024 * 1024,
        ...(maxEntries !== undefined && { maxEntries })
      })
    )

    expect(error).toBeInstanceOf(ZipError)
    expect(error).toMatchObject({ problem })
    if (typeof message === 'string') expect(error.message).toBe(message)
    else expect(error.message).toMatch(message)
  })

  it('inflates no more of a bomb than the entry declares', async () => {
    // A gibibyte of zeros in one megabyte, declaring 100 bytes: inflated whole, it would take
    // more than a gibibyte of memory (and seconds) before its size could be found out.
    const bomb = zip([
      { name: 'gates.json', raw: zeroBomb(1024 ** 3), lie: { uncompressedSize: 100 } }
    ])
    const artifact = standIn.addArtifact(RUN, 'gates', bomb)
    const before = process.memoryUsage().rss

    const error = await failure(download(artifact.id))

    expect(error).toMatchObject({ problem: 'too-large' })
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024)
  })

  function download(artifactId: number): Promise<Buffer> {
    return downloadArtifactFile(github(), {
      ...repo(),
      artifactId,
      file: 'gates.json',
      maxBytes: 64 * 1024,
      maxDownloadBytes: 4 * 1024 * 1024
    })
  }
})
