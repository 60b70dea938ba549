import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { z } from 'zod'
import { buildPrompt } from '../council/prompt.js'
import type { Council, CouncilOutcome, CouncilRequest, JudgeRun } from '../council/types.js'
import { VERSION } from '../version.js'

/**
 * The judges' answers of one iteration, kept in the sticky comment so that a run with nothing new
 * to judge asks no provider again (docs/council.md#the-verdict-cache). A human can edit the
 * comment, so the answers are sealed: an HMAC keyed by the council's own provider keys, which no
 * one reading or editing the comment has. Whatever fails to check is ignored, and the judges are
 * asked again: a stored answer can only ever save a call, never produce a verdict nobody judged.
 */
export interface SealedJudgement {
  /** The iteration whose answers these are. */
  readonly iteration: number
  /** What the judges were asked about: see `judgementDigest`. */
  readonly digest: string
  /** The runs (the council's, then its extra votes), as deflated JSON in base64. */
  readonly runs: string
  readonly quorum: number
  /** HMAC-SHA256 of the fields above. */
  readonly seal: string
}

export const SealedJudgementSchema = z.object({
  iteration: z.int().positive(),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  runs: z.string().max(200_000),
  quorum: z.int().positive(),
  seal: z.string().regex(/^[0-9a-f]{64}$/)
})

/** A stored answer is not kept when its seal is bigger than this: the comment has other uses. */
export const MAX_SEALED_CHARS = 24_000

/**
 * The digest of everything a judgement depends on: the action's version, the rubric, the evidence,
 * the council (its members and samples), and the prompt itself, built with one fixed fence, so
 * that whatever a judge would be shown (gate output included) is covered without a list kept by
 * hand. The iteration and the earlier runs are left out: a re-run sees one more of them.
 */
export function judgementDigest(request: CouncilRequest, council: string): string {
  const { rubric, evidence } = request
  const prompt = buildPrompt({ ...request, iteration: 1, earlier: [], seed: '', fence: 'DATA' })
  return createHash('sha256')
    .update(JSON.stringify({ version: VERSION, rubric: rubric.text, evidence, council, prompt }))
    .digest('hex')
}

/**
 * A key shorter than this, or with fewer distinct characters, could be guessed (`sk-1234`,
 * `xxxxxxxxxxxxxxxxxxxxxxxx`); every key a provider issues is far longer (OpenAI's and Anthropic's
 * are about 100 characters, Google's 39).
 */
const MIN_KEY_LENGTH = 20
const MIN_DISTINCT_CHARACTERS = 10

/**
 * The key that seals answers: derived from the provider keys that are real secrets (issued by a
 * provider, and not guessable at a glance); none without one, and then nothing is cached. A seal
 * keyed by a value someone could guess would let whoever can edit the comment forge answers.
 */
export function sealingKey(providerKeys: readonly string[]): Buffer | undefined {
  const secrets = providerKeys.filter(
    key => key.length >= MIN_KEY_LENGTH && new Set(key).size >= MIN_DISTINCT_CHARACTERS
  )
  return secrets.length === 0
    ? undefined
    : createHmac('sha256', secrets.join('\n')).update('rubric-council judgement cache v1').digest()
}

function sealOf(key: Buffer, fields: Omit<SealedJudgement, 'seal'>): string {
  return createHmac('sha256', key)
    .update(JSON.stringify([fields.iteration, fields.digest, fields.runs, fields.quorum]))
    .digest('hex')
}

/** The runs a sealed judgement holds, when its seal is good and it is about `digest`. */
function unseal(
  key: Buffer,
  sealed: SealedJudgement,
  digest: string
): { readonly runs: JudgeRun[]; readonly quorum: number } | undefined {
  if (sealed.digest !== digest) return undefined
  const expected = Buffer.from(sealOf(key, sealed), 'hex')
  const given = Buffer.from(sealed.seal, 'hex')
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const runs: unknown = JSON.parse(
      inflateRawSync(Buffer.from(sealed.runs, 'base64'), { maxOutputLength: 4_000_000 }).toString(
        'utf8'
      )
    )
    return Array.isArray(runs) ? { runs: runs as JudgeRun[], quorum: sealed.quorum } : undefined
  } catch {
    return undefined
  }
}

/** What a caching council did: the answers it reused, or the ones to keep for next time. */
export interface CacheResult {
  /** Set when the answers were reused: the iteration they come from. */
  readonly reusedFrom?: number
  readonly sealed?: SealedJudgement
}

/**
 * The council, remembering: when the previous judgement was about the same digest and its seal
 * holds, its runs are replayed (the council's answers, then its extra votes in order) with no
 * provider asked; otherwise the council is asked and its runs are sealed for the next run.
 * Without a key (no provider key) nothing is reused or kept.
 */
export function cachingCouncil(
  council: Council,
  options: {
    readonly key: Buffer | undefined
    readonly previous?: SealedJudgement
    /** This run's iteration: what a sealed judgement made now is of. */
    readonly iteration: number
  }
): Council & { readonly result: () => CacheResult } {
  const { key } = options
  let reused: { runs: JudgeRun[]; quorum: number; from: number } | undefined
  let digest: string | undefined
  const asked: JudgeRun[] = []
  let quorum = 1

  const replayed = (run: JudgeRun): JudgeRun => {
    // Nothing was spent on it this time.
    const rest = { ...run, latencyMs: 0, requests: 0 }
    delete rest.tokens
    delete rest.costUsd
    return rest
  }

  return {
    ...(council.contextLimit && { contextLimit: council.contextLimit }),
    ...(council.tooLarge && { tooLarge: council.tooLarge }),
    ...(council.configuration && { configuration: council.configuration }),
    ...(council.setup && { setup: council.setup }),
    convene: async (request, settled) => {
      digest = judgementDigest(request, council.configuration?.(request.rubric) ?? '')
      const previous =
        key === undefined || options.previous === undefined
          ? undefined
          : unseal(key, options.previous, digest)
      if (previous && options.previous) {
        reused = { ...previous, from: options.previous.iteration }
        const main = previous.runs.filter(r => r.extra === undefined)
        return { runs: main.map(replayed), quorum: previous.quorum }
      }
      const outcome: CouncilOutcome = await council.convene(request, settled)
      asked.push(...outcome.runs)
      quorum = outcome.quorum
      return outcome
    },
    ...(council.reserves && { reserves: council.reserves }),
    ...(council.extraVote && {
      extraVote: async (request, call) => {
        if (reused) {
          // Each voter casts one extra vote at most: its stored one, if it was asked then.
          const run = reused.runs.find(r => r.extra !== undefined && r.judge === call.judge)
          return run && replayed(run)
        }
        const run = await council.extraVote?.(request, call)
        const reserve = council.reserves?.(request.rubric).includes(call.judge) ?? false
        if (run) asked.push({ ...run, extra: { criteria: call.criteria, reserve } })
        return run
      }
    }),
    result: () => {
      // Kept as it was, so that the run after this one can reuse it too.
      if (reused)
        return { reusedFrom: reused.from, ...(options.previous && { sealed: options.previous }) }
      if (key === undefined || digest === undefined || asked.length === 0) return {}
      // Failed runs are not kept: the next run asks those judges again.
      if (asked.some(r => r.status !== 'ok')) return {}
      const fields = {
        iteration: options.iteration,
        digest,
        runs: deflateRawSync(JSON.stringify(asked)).toString('base64'),
        quorum
      }
      if (fields.runs.length > MAX_SEALED_CHARS) return {}
      return { sealed: { ...fields, seal: sealOf(key, fields) } }
    }
  }
}
