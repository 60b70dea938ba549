/**
 * A rubric's `paths` and `paths-ignore`, with the meaning GitHub gives `on.pull_request.paths`
 * (docs.github.com, "Workflow syntax for GitHub Actions", filter pattern cheat sheet): a pattern
 * matches the whole path from the repository's root; `*` is any run of characters but `/`, `**`
 * any run of characters, `/` included (followed by `/`: any number of folders, none included), `?` at most one character but `/`, `+` one or more of the
 * character before it, `[…]` one character of a set or range, `\` makes the next character plain;
 * a pattern that starts with `!` takes back what the patterns before it matched, so the last
 * pattern that matches a path decides. Dots are plain characters: `**` matches `.github/x` and
 * `*` matches `.env`, as in GitHub's filters.
 */

/** What a rubric's front matter scopes it to; neither list: every changed file. */
export interface RubricScope {
  readonly paths?: readonly string[]
  readonly pathsIgnore?: readonly string[]
}

interface Pattern {
  readonly negated: boolean
  readonly regex: RegExp
}

/** The pattern's problem for a person, or undefined when it is one GitHub would take. */
export function patternProblem(pattern: string): string | undefined {
  const body = pattern.startsWith('!') ? pattern.slice(1) : pattern
  if (body === '') return `the pattern "${pattern}" matches no path`
  if (body.startsWith('/')) {
    return `the pattern "${pattern}" starts with "/": patterns are relative to the repository's root, without a leading slash`
  }
  try {
    compile(body)
  } catch (error) {
    return `the pattern "${pattern}" ${error instanceof Error ? error.message : String(error)}`
  }
  return undefined
}

/** `pattern` (without its `!`) as a regular expression over a whole path; throws when invalid. */
function compile(pattern: string): RegExp {
  let source = ''
  let previous = ''
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] ?? ''
    let piece: string
    if (char === '*') {
      const double = pattern[i + 1] === '*'
      if (double) i++
      // `**/` is any number of folders, none included: `**/README.md` matches `README.md`.
      const folders = double && pattern[i + 1] === '/'
      if (folders) i++
      source += folders ? '(?:.*/)?' : double ? '.*' : '[^/]*'
      previous = ''
      continue
    } else if (char === '?') {
      source += '[^/]?'
      previous = ''
      continue
    } else if (char === '+') {
      if (previous === '') throw new Error('has a "+" with no plain character before it to repeat')
      source += '+'
      previous = ''
      continue
    } else if (char === '[') {
      const end = pattern.indexOf(']', i + 1)
      if (end === -1) throw new Error('has a "[" without its "]"')
      const set = pattern.slice(i + 1, end)
      if (!/^(?:[a-z]-[a-z]|[A-Z]-[A-Z]|[0-9]-[0-9]|[^\]\\[-])+$/.test(set)) {
        throw new Error(
          `has the set "[${set}]": a set lists characters, or ranges within a-z, A-Z or 0-9`
        )
      }
      piece = `[${set}]`
      i = end
    } else if (char === '\\') {
      const next = pattern[i + 1]
      if (next === undefined) throw new Error('ends with "\\", which escapes nothing')
      piece = escapeRegex(next)
      i++
    } else {
      piece = escapeRegex(char)
    }
    source += piece
    previous = piece
  }
  return new RegExp(`^${source}$`, 'u')
}

function escapeRegex(char: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char
}

/** The patterns compiled once, each with whether it takes back (`!`); invalid ones left out. */
function compiled(patterns: readonly string[]): Pattern[] {
  return patterns.flatMap(pattern => {
    const negated = pattern.startsWith('!')
    try {
      return [{ negated, regex: compile(negated ? pattern.slice(1) : pattern) }]
    } catch {
      return []
    }
  })
}

/** Whether `path` matches the list: the last pattern matching it decides. */
function listMatches(patterns: readonly Pattern[], path: string): boolean {
  let matched = false
  for (const pattern of patterns) if (pattern.regex.test(path)) matched = !pattern.negated
  return matched
}

/**
 * Whether a changed file is in the rubric's scope: it matches `paths` (when given) and is not
 * taken out by `paths-ignore` (when given). A rubric without either sees every file.
 */
export function inScope(scope: RubricScope): (path: string) => boolean {
  const paths = scope.paths === undefined ? undefined : compiled(scope.paths)
  const ignore = scope.pathsIgnore === undefined ? undefined : compiled(scope.pathsIgnore)
  return path =>
    (paths === undefined || listMatches(paths, path)) &&
    (ignore === undefined || !listMatches(ignore, path))
}

/** Whether the rubric has a scope at all (`paths` or `paths-ignore`). */
export function isScoped(scope: RubricScope): boolean {
  return scope.paths !== undefined || scope.pathsIgnore !== undefined
}

/**
 * The positive patterns of the scope that match none of `files` (the repository's): a `paths`
 * entry with a typo scopes its rubric to nothing. `!` patterns and `paths-ignore` are left out:
 * one that takes out nothing does no harm.
 */
export function unmatchedPatterns(scope: RubricScope, files: readonly string[]): string[] {
  return (scope.paths ?? []).filter(pattern => {
    if (pattern.startsWith('!')) return false
    const [one] = compiled([pattern])
    return one !== undefined && !files.some(file => one.regex.test(file))
  })
}
