import type { SkipReason } from '../engine/skip.js'

/**
 * The sentences about whether a pull request is judged, and by which rubrics: the `skip-*` rules
 * (docs/pr-bot.md#skipping-a-pull-request) and several rubrics scoped by paths
 * (docs/rubric.md#several-rubrics). The reasons of a verdict are in reasons.ts.
 */

/** A skipped run's check-run title: `skipped: …`, what held. Pure. */
export function skipTitle(reason: SkipReason): string {
  switch (reason.rule) {
    case 'draft':
      return 'skipped: a draft pull request'
    case 'bot':
      return `skipped: opened by the bot @${reason.login}`
    case 'label':
      return `skipped: labelled "${reason.label}"`
    case 'paths': {
      const files =
        reason.files === 1 ? 'the changed file matches' : `all ${reason.files} changed files match`
      return `skipped: ${files} skip-paths`
    }
  }
}

const SKIP_INPUT = {
  draft: 'skip-drafts',
  bot: 'skip-bots',
  label: 'skip-label',
  paths: 'skip-paths'
} as const

/** A skip rule held, but the run is a review all the same, for `problem`. Pure. */
export function skipRefused(reason: SkipReason, problem: string): string {
  return `${SKIP_INPUT[reason.rule]} would skip this pull request, but it is reviewed: ${problem}`
}

/**
 * Why the skip label, on the pull request, does not skip this run of `head`: it binds to the
 * commit it was put on, in the run its `labeled` event started. Pure.
 */
export function labelNotBound(
  run: { readonly event: string; readonly action: string },
  head: string
): string {
  const short = head.slice(0, 7)
  if (run.event === 'workflow_run') {
    return `on workflow_run the event does not say which activity started the run it follows, so the label cannot be bound to the commit it was put on, and ${short} is reviewed`
  }
  const activity = run.action === '' ? run.event : `${run.event} ${run.action}`
  return `the label skips only the commit it was put on, in the run its labelling started; this run (${activity}) is of ${short}, which is reviewed: take the label off and put it on again to skip ${short}`
}

/** What makes a skipped check run for real, for its summary. Pure. */
export function skipNext(reason: SkipReason): string {
  const until = {
    draft: 'It runs when the pull request is marked ready for review.',
    bot: 'It runs on the next push by anyone who is not a bot.',
    label:
      'The label skips this commit only: it runs when the label is removed, and on the next push.',
    paths: 'It runs on the next push that changes a file outside those paths.'
  }
  return `The workflow's \`${SKIP_INPUT[reason.rule]}\` input skips Rubric Council here: nothing was judged. ${until[reason.rule]}`
}

/** The check run's title of a rubric among several that does not apply to the pull request. */
export function notApplicableTitle(scope: string): string {
  return `not applicable: no changed file matches ${scope}`.slice(0, 255)
}

/** Its summary: why that is success, and what would make it apply. */
export function notApplicableSummary(path: string): string {
  return (
    `The rubric \`${path}\` is scoped by its \`paths\` (or \`paths-ignore\`) to files this pull request does not change, so nothing was judged by it. ` +
    'It applies, and is judged, on a push that changes one of those files.'
  )
}

/** A rubric whose name another rubric file of the repository already has. */
export function duplicateRubricName(name: string, first: string): string {
  return `the rubric name "${name}" is already that of ${first}; each rubric needs its own name (its check run is named after it): set another \`name\` in the front matter, or rename the file`
}

/** A `paths` pattern that matches no file of the repository: its rubric would never apply. */
export function unmatchedPattern(pattern: string, file: string): string {
  return `paths: "${pattern}" matches no file in this repository, so ${file} would never apply to a pull request that changes only existing files; check the pattern (paths are relative to the repository's root; "*" does not cross "/", "**" does)`
}

/** Several rubrics, each scoped by paths: what a pull request outside them all gets. */
export function noCatchAll(): string {
  return 'note: every rubric is scoped by paths, so a pull request that changes only files none of them matches is judged by none (each check run says not applicable, and no gate runs); to judge every pull request, add .github/rubric.md without paths as the catch-all'
}
