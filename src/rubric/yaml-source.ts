import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml'
import type { LineProblem } from './markdown.js'
import { explainYamlErrors, firstSentence } from './yaml-errors.js'
import type { Path } from './zod-issues.js'

export interface Position {
  readonly line: number
  readonly column: number
}

export interface YamlSource {
  /** The plain data; `undefined` for an empty document. */
  readonly data: unknown
  /** Where a path's key or value stands in the file (the nearest existing node if it is absent). */
  readonly locate: (path: Path, at: 'key' | 'value') => Position
  readonly problems: readonly LineProblem[]
}

/** Aliases beyond this many are refused, so a "billion laughs" document cannot exhaust memory. */
const MAX_ALIAS_COUNT = 100

/**
 * Parses YAML whose first character stands on line 1 of the file (a YAML rubric, or the front
 * matter, which starts right after the opening `---` on line 1).
 */
export function parseYaml(text: string): YamlSource {
  const lineCounter = new LineCounter()
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true })
  const position = (offset: number): Position => {
    const { line, col } = lineCounter.linePos(offset)
    return { line, column: col }
  }
  const problems = explainYamlErrors(text, doc, position)

  let data: unknown
  if (problems.length === 0) {
    try {
      data = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT })
    } catch (error) {
      problems.push({
        line: 1,
        column: 1,
        rule: 'yaml-syntax',
        message: `invalid YAML: ${firstSentence(error instanceof Error ? error.message : String(error))}`
      })
    }
  }

  const locate = (path: Path, at: 'key' | 'value'): Position => {
    let node: unknown = doc.contents
    let found: Position =
      node && isNode(node) && node.range ? position(node.range[0]) : { line: 1, column: 1 }
    for (const [index, segment] of path.entries()) {
      const last = index === path.length - 1
      if (isMap(node)) {
        const pair = node.items.find(
          p => isScalar(p.key) && String(p.key.value) === String(segment)
        )
        if (!pair) break
        const keyNode = pair.key as Node
        if (keyNode.range) found = position(keyNode.range[0])
        if (last && at === 'key') break
        // A block list or mapping starts on the line after its key: point at the key instead.
        const value = pair.value
        if (last && isNode(value) && value.range && position(value.range[0]).line > found.line)
          break
        node = value
      } else if (isSeq(node) && typeof segment === 'number') {
        node = node.items[segment]
      } else {
        break
      }
      if (isNode(node) && node.range) found = position(node.range[0])
    }
    return found
  }

  return { data, locate, problems }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value
}
