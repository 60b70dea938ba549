/**
 * The check run's name for a pull request: `check-name` itself when the pull request is into the
 * default branch, and `check-name (base)` otherwise. One head commit can be the head of pull
 * requests into several branches, each graded by its own base's rubric; a check run is attached
 * to the commit, not to a pull request, so a success under a weaker branch's rubric must never
 * carry the name the default branch requires. A base that cannot be told apart from the default
 * branch counts as another branch.
 */
export function checkRunName(
  checkName: string,
  pr: { readonly baseRef: string; readonly defaultBranch: string }
): string {
  return pr.defaultBranch !== '' && pr.baseRef === pr.defaultBranch
    ? checkName
    : `${checkName} (${pr.baseRef === '' ? 'unknown base' : pr.baseRef})`
}
