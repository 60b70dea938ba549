import { failed, ok, type Result } from '../util/result.js'

/** The action's repository on GitHub, as a workflow's `uses:` names it. */
export const ACTION_REPOSITORY = 'rubric-council/rubric-council'

/**
 * The commit the workflows `init` writes pin the action to, as a full SHA, which GitHub resolves
 * whether or not a tag exists yet, and which nobody can move
 * (https://docs.github.com/en/actions/security-guides/security-hardening-for-github-actions#using-third-party-actions):
 * the release commit of the running CLI's commit when a release tag names one (the same action,
 * dist/ and gates/, a smaller download), else the CLI's own commit.
 */
export interface ActionPin {
  /** 40 hexadecimal digits. */
  readonly commit: string
  /** The version, X.Y.Z, shown in the line's comment for people and for Dependabot. */
  readonly version: string
}

/** A release tag of a checkout, `vX.Y.Z`, and the commit it names. */
export interface ReleaseTag {
  readonly tag: string
  readonly commit: string
  /**
   * Whether it is a release of the checkout's HEAD: it names HEAD, or a release commit
   * (scripts/release.ts) whose files are exactly HEAD's action.yml, dist/, gates/ and licences
   * (src/init/release-tree.ts), compared object by object.
   */
  readonly ofHead: boolean
  /**
   * What to check out to run that release's CLI: the tag, or for a release commit (which holds
   * no CLI) the commit it was built from, `vX.Y.Z^`.
   */
  readonly checkout: string
}

/** What the CLI knows about where it came from; read by `readPinFacts` (pin-facts.ts). */
export interface PinFacts {
  /** The CLI's version, X.Y.Z. */
  readonly version: string
  /** Where the CLI's package is, for the messages. */
  readonly packageRoot: string | undefined
  /** HEAD, when the package folder is the top of a git checkout of Rubric Council. */
  readonly checkoutHead: string | undefined
  /** The commit the package was packed from: package.json's `gitHead`, or `commit.json`. */
  readonly packedCommit: string | undefined
  /** The checkout's release tags; none outside a checkout. */
  readonly releaseTags: readonly ReleaseTag[]
}

/**
 * What the pinned commit is, for the sentence `init` says of it (sentences.ts): a release, a
 * checkout's HEAD that no release tag names, or the commit a package was packed from.
 */
export type PinSource =
  | {
      readonly kind: 'release'
      readonly root: string
      readonly tag: string
      readonly newer: ReleaseTag | undefined
    }
  | { readonly kind: 'checkout'; readonly root: string; readonly latest: ReleaseTag | undefined }
  | { readonly kind: 'package'; readonly version: string }

const FULL_SHA = /^[0-9a-f]{40}$/
/** A release's tag: `v` and three numbers, nothing after (a pre-release is not one). */
export const RELEASE_TAG = /^v(\d+)\.(\d+)\.(\d+)$/

/**
 * The pin, from the first commit known: the checkout's HEAD (its release commit when a release tag
 * of HEAD names one: `headRelease`), else the commit the package was packed from. Without either
 * there is no pin: a tag is never guessed from the version (before the first release there is
 * none, and GitHub then stops the job), so the problem says how to pin by hand.
 */
export function choosePin(facts: PinFacts): Result<ActionPin> {
  const commit = [facts.checkoutHead, facts.packedCommit]
    .map(c => c?.trim().toLowerCase())
    .find(c => c !== undefined && FULL_SHA.test(c))
  const release =
    commit === facts.checkoutHead?.trim().toLowerCase() ? headRelease(facts) : undefined
  if (release !== undefined)
    return ok({ commit: release.commit.toLowerCase(), version: release.tag.slice(1) })
  if (commit !== undefined) return ok({ commit, version: facts.version })
  const where = facts.packageRoot ?? 'its package folder'
  return failed(
    `cannot tell which commit of Rubric Council this CLI is (${where} is no git checkout of it and ` +
      'records no commit), and the workflows must pin the action to one. Run init from a clone of ' +
      `https://github.com/${ACTION_REPOSITORY}, or pin by hand: copy the workflows from its ` +
      'examples/workflows/ and put in each `uses:` line the full commit SHA of a release, which ' +
      `\`git ls-remote https://github.com/${ACTION_REPOSITORY} 'refs/tags/v${facts.version}^{}'\` prints`
  )
}

/** The newest release tag of the checkout's HEAD (`ReleaseTag.ofHead`), if any. */
function headRelease(facts: PinFacts): ReleaseTag | undefined {
  return byVersion(facts.releaseTags)
    .filter(t => t.ofHead)
    .at(-1)
}

function byVersion(tags: readonly ReleaseTag[]): ReleaseTag[] {
  return [...tags].sort((a, b) => compareReleases(a.tag, b.tag))
}

/**
 * Whether the pinned commit is a release, from the checkout's tags: a HEAD that release tags are of
 * is the newest of them (and a newer release is named); any other HEAD is no release, and the
 * newest release tag is named instead. Without a checkout, the package's version is all it knows.
 */
export function pinSource(facts: PinFacts, pin: ActionPin): PinSource {
  const head = facts.checkoutHead?.trim().toLowerCase()
  const here = headRelease(facts)
  const headPin = here === undefined ? head : here.commit.toLowerCase()
  if (head === undefined || headPin !== pin.commit || facts.packageRoot === undefined)
    return { kind: 'package', version: facts.version }
  const root = facts.packageRoot
  const latest = byVersion(facts.releaseTags).at(-1)
  if (here === undefined) return { kind: 'checkout', root, latest }
  return {
    kind: 'release',
    root,
    tag: here.tag,
    newer: latest?.tag === here.tag ? undefined : latest
  }
}

/** Orders `vX.Y.Z` tags by version. */
function compareReleases(a: string, b: string): number {
  const numbers = (tag: string): number[] => (RELEASE_TAG.exec(tag) ?? []).slice(1).map(Number)
  const [x, y] = [numbers(a), numbers(b)]
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0)
  return 0
}

/**
 * The `uses:` value of the action (`path` '') or of its gates sub-action (`path` '/gates'), with
 * the version as a comment: `rubric-council/rubric-council@<sha> # v0.1.0`.
 */
export function usesPinned(pin: ActionPin, path: '' | '/gates' = ''): string {
  return `${ACTION_REPOSITORY}${path}@${pin.commit} # v${pin.version}`
}
