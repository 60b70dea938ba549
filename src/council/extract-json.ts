import { isRecord } from '../util/is-record.js'
import { failed, ok, type Result } from '../util/result.js'

export type Extraction = Result<Record<string, unknown>>

/**
 * The one JSON object in a model's text: the whole text, or inside a code fence, or surrounded by
 * prose (what a provider that ignored the schema sends back). Two different objects are no answer:
 * guessing which one the judge meant would let prose choose the verdict.
 */
export function extractJson(text: string): Extraction {
  if (text.trim() === '') return failed('the answer is empty')
  const whole = parseJson(text.trim())
  if (whole.parsed) {
    return isRecord(whole.value)
      ? ok(whole.value)
      : failed('the answer is JSON, but not one object')
  }

  // Every object, in a fence or not: a judge that quotes the pull request's JSON in a fence and
  // answers outside one has given two, and neither is taken for its answer.
  const fence = /```[a-zA-Z]*[ \t]*\r?\n([\s\S]*?)```/g
  const fenced = [...text.matchAll(fence)].map(m => m[1] ?? '')
  const outside = topLevelObjects(text.replace(fence, '\n'))
  if (outside === undefined) {
    return failed('the answer has a "{" that is never closed; give exactly one JSON object')
  }
  const candidates = [...fenced, ...outside]
    .map(candidate => parseObject(candidate.trim()))
    .filter(value => value !== undefined)
  const distinct = new Map(candidates.map(value => [JSON.stringify(value), value]))
  const [only, ...others] = distinct.values()
  if (only !== undefined && others.length === 0) return ok(only)
  return failed(
    distinct.size > 1
      ? `the answer holds ${distinct.size} different JSON objects; give exactly one`
      : 'the answer is not JSON'
  )
}

function parseObject(text: string): Record<string, unknown> | undefined {
  const { parsed, value } = parseJson(text)
  return parsed && isRecord(value) ? value : undefined
}

function parseJson(text: string): { parsed: boolean; value?: unknown } {
  try {
    return { parsed: true, value: JSON.parse(text) as unknown }
  } catch {
    return { parsed: false }
  }
}

/**
 * Each balanced `{…}` span outside any other, with braces inside JSON strings ignored; undefined
 * when a `{` is never closed, which would hide every object after it.
 */
function topLevelObjects(text: string): string[] | undefined {
  const spans: string[] = []
  let depth = 0
  let start = -1
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === '\\') i++
      else if (char === '"') inString = false
      continue
    }
    if (char === '"' && depth > 0) inString = true
    else if (char === '{') {
      if (depth === 0) start = i
      depth++
    } else if (char === '}' && depth > 0) {
      depth--
      if (depth === 0) spans.push(text.slice(start, i + 1))
    }
  }
  return depth === 0 ? spans : undefined
}
