import { buildRubric } from './build.js'
import { compareIssues, rubricProblems, type RubricResult } from './errors.js'
import { checkFrontMatter } from './front-matter.js'
import { rubricHash } from './hash.js'
import { parseBody, type ParsedBody } from './markdown.js'
import type { RubricSourceKind } from './types.js'
import { parseYaml, type YamlSource } from './yaml-source.js'
import { failed, ok, type Result } from '../util/result.js'

export interface RubricInput {
  /** The file's text, exactly as read (it is hashed as is). */
  readonly text: string
  /** The path shown in messages and reports. */
  readonly path: string
  readonly kind?: RubricSourceKind
}

function isYamlPath(path: string): boolean {
  return /\.ya?ml$/i.test(path)
}

/**
 * Parses and validates a rubric (docs/rubric.md): a Markdown file with optional YAML front matter, or a
 * YAML file. Returns the rubric, or every problem of the file. Nothing is thrown: an exception
 * from here is a bug.
 */
export function parseRubric(input: RubricInput): RubricResult {
  const { path } = input
  const text = input.text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n')
  if (text.trim() === '') {
    return rubricProblems([
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
      return rubricProblems([
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
  return buildIssues.length > 0 ? rubricProblems(buildIssues.sort(compareIssues)) : ok(rubric)
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
