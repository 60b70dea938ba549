import { buildRubric } from './build.js'
import { compareIssues, rubricProblems, type RubricIssue, type RubricResult } from './errors.js'
import { checkFrontMatter } from './front-matter.js'
import { rubricHash } from './hash.js'
import { parseBody, type ParsedBody } from './markdown.js'
import { mergeRubrics, overridesOf, type SetKeys } from './merge.js'
import { own } from './own.js'
import { MAX_EXTENDS_DEPTH, RUBRIC_NAME_PATTERN } from './schema.js'
import type { Rubric, RubricSourceKind } from './types.js'
import { parseYaml, type YamlSource } from './yaml-source.js'
import { failed, ok, type Result } from '../util/result.js'

export interface RubricInput {
  /** The file's text, exactly as read (it is hashed as is). */
  readonly text: string
  /** The path shown in messages and reports. */
  readonly path: string
  readonly kind?: RubricSourceKind
  /**
   * The text of every rubric its `extends` names, at any depth, by `owner/repo/path@ref`, as
   * `readExtends` read them through the API.
   */
  readonly upstream?: Readonly<Record<string, string>>
}

/**
 * `merged`: the rubric with every rubric it extends merged in (each must be in `upstream`);
 * `as written`: this file alone, its `extends` named but not read (to compare two versions).
 */
export type ParseMode = 'merged' | 'as written'

/** A path, or `owner/repo/path@ref` for a rubric read from another repository. */
function isYamlPath(path: string): boolean {
  return /\.ya?ml(?:@[^@]+)?$/i.test(path)
}

/**
 * Parses and validates a rubric (docs/rubric.md): a Markdown file with optional YAML front matter, or a
 * YAML file. Returns the rubric, or every problem of the file. Nothing is thrown: an exception
 * from here is a bug.
 */
export function parseRubric(input: RubricInput, mode: ParseMode = 'merged'): RubricResult {
  return parseAt(input, mode, [])
}

/** `chain`: the rubrics that extend this one, outermost first (a cycle returns to one of them). */
function parseAt(input: RubricInput, mode: ParseMode, chain: readonly string[]): RubricResult {
  const file = parseFile(input)
  if (!file.ok) return file
  const { rubric, set } = file.value
  if (mode === 'as written' || rubric.extends.length === 0) return ok(rubric)

  const issues: RubricIssue[] = []
  const parents: { readonly spec: string; readonly rubric: Rubric }[] = []
  for (const upstream of rubric.extends) {
    const at = (message: string): void => {
      issues.push({
        file: input.path,
        line: upstream.line,
        ...(upstream.column !== undefined && { column: upstream.column }),
        rule: 'extends',
        message
      })
    }
    const { spec } = upstream
    if (chain.includes(spec)) {
      at(`extends "${spec}" makes a cycle: ${[...chain, spec].join(' → ')}`)
      continue
    }
    if (chain.length >= MAX_EXTENDS_DEPTH) {
      at(
        `extends "${spec}" is more than ${MAX_EXTENDS_DEPTH} levels deep (${[...chain, spec].join(' → ')}); extend a rubric that extends less`
      )
      continue
    }
    const text = input.upstream === undefined ? undefined : own(input.upstream, spec)
    if (text === undefined) {
      at(
        `extends "${spec}", which was not read (rubrics in other repositories are read through the GitHub API, with a token)`
      )
      continue
    }
    const parent = parseAt(
      { text, path: spec, kind: 'file', ...(input.upstream && { upstream: input.upstream }) },
      'merged',
      [...chain, spec]
    )
    if (parent.ok) parents.push({ spec, rubric: parent.value })
    else issues.push(...parent.problem)
  }
  const first = parents[0]
  if (issues.length > 0 || first === undefined) return rubricProblems(issues)

  const inherited = parents
    .slice(1)
    .reduce((sum, parent) => mergeRubrics(sum, parent.rubric, {}), first.rubric)
  const merged = mergeRubrics(inherited, rubric, set)
  const { thresholds } = merged
  if (thresholds.fail > thresholds.pass) {
    const named = rubric.extends[0]
    return rubricProblems([
      {
        file: input.path,
        line: named?.line ?? 1,
        rule: 'threshold',
        message: `with the rubrics it extends, thresholds.fail (${thresholds.fail}) exceeds thresholds.pass (${thresholds.pass})`
      }
    ])
  }
  const overrides = overridesOf(inherited, merged)
  return ok({
    ...merged,
    // The rubric is all of them: a change upstream is a change of rubric.
    hash: rubricHash(
      [input.text, ...parents.map(p => `extends ${p.spec} ${p.rubric.hash}`)].join('\n')
    ),
    inherited: {
      from: [...new Set(parents.flatMap(p => [p.spec, ...(p.rubric.inherited?.from ?? [])]))],
      overrides,
      weakened: overrides.some(o => o.weakens)
    }
  })
}

/** One file on its own, with the front matter keys it sets. */
function parseFile(
  input: RubricInput
): Result<{ rubric: Rubric; set: SetKeys }, readonly RubricIssue[]> {
  const { path } = input
  const text = input.text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
  if (text.trim() === '') {
    return failed([
      {
        file: path,
        line: 1,
        rule: 'empty-rubric',
        message: 'the rubric file is empty; it needs gates, criteria or dimensions'
      }
    ])
  }

  const yamlFile = isYamlPath(path)
  let yaml: YamlSource
  let body: ParsedBody | undefined
  if (yamlFile) {
    yaml = parseYaml(text)
  } else {
    const split = splitFrontMatter(text)
    if (!split.ok) {
      return failed([
        { file: path, line: 1, column: 1, rule: 'yaml-syntax', message: split.problem }
      ])
    }
    yaml = parseYaml(split.value.matter)
    body = parseBody(split.value.body, split.value.bodyLine)
  }

  // With broken YAML the data is unknown; the body's problems still count.
  const frontMatter =
    yaml.problems.length === 0
      ? checkFrontMatter(yaml.data, yamlFile ? 'rubric' : 'front matter')
      : checkFrontMatter(undefined, 'rubric')
  const { rubric, issues: buildIssues } = buildRubric({
    source: { path, kind: input.kind ?? 'file' },
    text: input.text,
    hash: rubricHash(input.text),
    frontMatter,
    body,
    lineProblems: yaml.problems,
    locate: yaml.locate
  })
  return buildIssues.length > 0
    ? failed(buildIssues.sort(compareIssues))
    : ok({ rubric, set: frontMatter.values })
}

/**
 * The `name` a rubric's front matter gives (its YAML, for a `.yml` rubric), read even when the
 * rubric is not valid: with several rubrics it names the check run, and a rubric that became
 * invalid must report under the name its check run has, not another one. Undefined when the front
 * matter cannot be read or gives no valid name.
 */
export function declaredName(input: {
  readonly text: string
  readonly path: string
}): string | undefined {
  const text = input.text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
  const split = isYamlPath(input.path) ? ok({ matter: text }) : splitFrontMatter(text)
  if (!split.ok) return undefined
  const yaml = parseYaml(split.value.matter)
  const data: unknown = yaml.data
  // YAML that does not parse as a whole: the top-level `name:` line on its own, when it has one.
  const name =
    yaml.problems.length > 0
      ? /^name:[ \t]*(['"]?)([^'"\n#]*?)\1[ \t]*(?:#.*)?$/m.exec(split.value.matter)?.[2]
      : typeof data === 'object' && data !== null && 'name' in data
        ? data.name
        : undefined
  return typeof name === 'string' && RUBRIC_NAME_PATTERN.test(name) ? name : undefined
}

interface Split {
  /** The front matter's YAML, starting on line 1 of the file ('' when there is none). */
  readonly matter: string
  readonly body: string
  /** File line the body starts on. */
  readonly bodyLine: number
}

/**
 * Splits the front matter from the body. Front matter opens with `---` on line 1 and closes with
 * the next line that is `---`. Only YAML is accepted: `---js` and the like are refused, never
 * evaluated. The front matter keeps the line break that ends line 1, so that its YAML's line
 * numbers are the file's. `text` is already free of a BOM and of CR line ends.
 */
function splitFrontMatter(text: string): Result<Split> {
  const open = /^---(?!-)([^\n]*)/.exec(text)
  if (!open) return ok({ matter: '', body: text, bodyLine: 1 })
  const language = (open[1] ?? '').trim()
  if (language !== '' && language !== 'yaml') {
    return failed(`front matter must be YAML, but it is marked "---${language}"`)
  }
  const close = /\n---[ \t]*(?:\n|$)/g
  close.lastIndex = open[0].length
  const closing = close.exec(text)
  if (!closing) {
    return failed('the front matter opened with --- on line 1 is never closed with ---')
  }
  const matter = text.slice(open[0].length, closing.index)
  const bodyStart = closing.index + closing[0].length
  let bodyLine = 1
  for (let i = 0; i < bodyStart; i++) if (text.charCodeAt(i) === 10) bodyLine++
  return ok({ matter, body: text.slice(bodyStart), bodyLine })
}
