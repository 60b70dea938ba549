import { buildEvidence } from './build.js'
import { parseUnifiedDiff } from './diff.js'
import { defaultBase, diffFromMergeBase, localDiff, runGit, type Run } from './git.js'
import type { EvidenceSource } from './source.js'
import type { PriorIteration } from './types.js'

export interface EvidenceSettings {
  /** The `max-evidence-tokens` budget. */
  readonly maxTokens: number
  /** The `exclude` input; the rubric's own `exclude` is added to it. */
  readonly exclude: readonly string[]
  readonly iteration: number
  readonly history: readonly PriorIteration[]
}

/**
 * Starts computing a pull request's diff from the merge base of its base and head commits, so
 * that git works (in its own process) while the action reads from GitHub. A failure surfaces
 * where the diff is used, as the evidence being unavailable.
 */
export function startDiff(options: {
  readonly cwd: string
  readonly baseSha: string
  readonly headSha: string
  readonly run?: Run
}): Promise<string> {
  const diff = diffFromMergeBase({
    cwd: options.cwd,
    base: options.baseSha,
    head: options.headSha,
    ...(options.run && { run: options.run })
  }).then(result => result.diff)
  // Handled where it is awaited; until then, not an unhandled rejection.
  diff.catch(() => undefined)
  return diff
}

/** A pull request's evidence, from the diff `startDiff` computes. */
export function pullRequestEvidence(
  options: EvidenceSettings & {
    readonly diff: Promise<string>
    readonly title: string
    readonly body: string
  }
): EvidenceSource {
  return {
    collect: async (rubric, limit) => {
      const diff = await options.diff
      return buildEvidence({
        files: parseUnifiedDiff(diff),
        pr: { title: options.title, body: options.body },
        exclude: [...rubric.exclude, ...options.exclude],
        maxTokens: Math.min(options.maxTokens, limit ?? Infinity),
        iteration: options.iteration,
        history: options.history
      })
    }
  }
}

/**
 * A local repository's evidence for `rubric-council check`: the diff from the merge base of `base`
 * (default: the upstream, else main) to the working tree, with the last commit as title and body.
 */
export function localEvidence(
  options: EvidenceSettings & { readonly cwd: string; readonly base?: string; readonly run?: Run }
): EvidenceSource {
  const run = options.run ?? runGit
  return {
    collect: async (rubric, limit) => {
      const base = options.base ?? (await defaultBase(options.cwd, run))
      const { diff } = await localDiff({ cwd: options.cwd, base, run })
      const log = await run(['log', '-1', '--format=%s%n%b'], options.cwd)
      const [title = '', ...body] = log.exitCode === 0 ? log.stdout.split('\n') : []
      return buildEvidence({
        files: parseUnifiedDiff(diff),
        pr: { title, body: body.join('\n').trim() },
        exclude: [...rubric.exclude, ...options.exclude],
        maxTokens: Math.min(options.maxTokens, limit ?? Infinity),
        iteration: options.iteration,
        history: options.history
      })
    }
  }
}
