import { posix } from 'node:path'
import type { Anchor, FocusArea, GateOptions, Thresholds } from './types.js'

/** The rubric's defaults (docs/rubric.md), kept in one place so docs and code cannot drift apart. */

export const DEFAULT_RUBRIC_PATH = '.github/rubric.md'

/** The folder of several rubrics: `rubrics/` beside the rubric file (`.github/rubrics`). */
export function rubricsFolder(rubricPath: string): string {
  return posix.join(posix.dirname(rubricPath), 'rubrics')
}

/**
 * The largest rubric file read, in bytes (1 MiB): about what GitHub's contents API, through which
 * the action reads the base branch's rubric, serves whole (1 MB). Larger ones are refused, never
 * cut: the hash and the judges must see the file as it is.
 */
export const MAX_RUBRIC_BYTES = 1024 * 1024

/** Whether a file of the `rubrics/` folder is a rubric: `*.md`, `*.yml`, `*.yaml`. */
export function isRubricFile(path: string): boolean {
  return /\.(?:md|ya?ml)$/.test(path)
}

export const DEFAULT_THRESHOLDS: Thresholds = { pass: 0.8, fail: 0.6, confidence: 0.7 }

export const DEFAULT_GATE_OPTIONS: GateOptions = {
  timeout: 600,
  parallel: 1,
  workingDirectory: '.'
}

/** What `gates.parallel: true` means. */
export const PARALLEL_GATES_WHEN_TRUE = 4

export const DEFAULT_SAMPLES = 1

/**
 * Extra judge calls that may confirm a must-have the judges are not agreed on (docs/verdict.md):
 * two, so that with two reserves a 2–1 must-have of three members is confirmed or overturned
 * (a lead of two), or decided 3–2; `npm run simulate` measures the rates and calls.
 */
export const DEFAULT_MAX_EXTRA_VOTES = 2

/** The most extra calls a rubric may allow. */
export const MAX_EXTRA_VOTES = 5

export const DEFAULT_MIN_COVERAGE = 1

export interface BuiltInDimension {
  readonly weight: number
  readonly description: string
  readonly anchors: readonly Anchor[]
}

function anchors(rows: readonly [label: string, description: string][]): readonly Anchor[] {
  // Rows run from the best band (9–10) down to the worst (1–2).
  return rows.map(([label, description], i) => ({
    min: 9 - 2 * i,
    max: 10 - 2 * i,
    label,
    description
  }))
}

/** The LLM Council verification dimensions, with their weights and behavioural anchors. */
export const BUILT_IN_DIMENSIONS: Readonly<Record<string, BuiltInDimension>> = {
  accuracy: {
    weight: 30,
    description: 'Factual correctness and absence of errors',
    anchors: anchors([
      ['Excellent', 'No factual errors; all claims verifiable; edge cases handled correctly'],
      ['Good', "Minor inaccuracies that don't affect functionality; mostly correct"],
      ['Mixed', 'Some errors present but core functionality intact; needs review'],
      ['Poor', 'Significant errors affecting functionality; requires rework'],
      ['Critical', 'Fundamental errors; incorrect approach; dangerous if deployed']
    ])
  },
  completeness: {
    weight: 25,
    description: 'Coverage of requirements and handling of all cases',
    anchors: anchors([
      ['Comprehensive', 'All requirements addressed; edge cases handled; thorough coverage'],
      ['Adequate', 'Main requirements met; minor gaps in edge case handling'],
      ['Partial', 'Core functionality present but notable gaps; happy path only'],
      ['Incomplete', 'Major requirements missing; significant gaps'],
      ['Minimal', 'Only skeletal implementation; most requirements unaddressed']
    ])
  },
  clarity: {
    weight: 20,
    description: 'Readability, organisation and ease of understanding',
    anchors: anchors([
      ['Crystal clear', 'Self-documenting; excellent organisation; easy to follow'],
      ['Clear', 'Well organised; good naming; minor clarity issues'],
      ['Acceptable', 'Understandable with effort; some confusing sections'],
      ['Unclear', 'Difficult to follow; poor organisation; needs refactoring'],
      ['Opaque', 'Nearly incomprehensible; no clear structure']
    ])
  },
  conciseness: {
    weight: 15,
    description: 'Efficiency without unnecessary complexity',
    anchors: anchors([
      ['Optimal', 'No redundancy; elegant solutions; right-sized'],
      ['Efficient', 'Minor redundancy; mostly concise; good balance'],
      ['Adequate', 'Some unnecessary complexity; could be simplified'],
      ['Verbose', 'Significant redundancy; over-engineered'],
      ['Bloated', 'Extreme redundancy; unnecessary complexity throughout']
    ])
  },
  relevance: {
    weight: 10,
    description: 'Alignment with the requirements and stated goals',
    anchors: anchors([
      ['Perfectly aligned', 'Directly addresses requirements; no scope creep'],
      ['Well aligned', 'Addresses requirements with minor tangents'],
      ['Somewhat aligned', 'Addresses core requirements but with notable deviations'],
      ['Misaligned', 'Partially addresses the wrong problems'],
      ['Off target', 'Does not address the stated requirements']
    ])
  }
}

/** Anchors for a dimension the rubric defines itself: generic bands around its description. */
export const GENERIC_ANCHORS: readonly Anchor[] = anchors([
  ['Excellent', 'Fully meets the description; nothing to improve'],
  ['Good', 'Meets the description with minor gaps'],
  ['Mixed', 'Partly meets the description; needs review'],
  ['Poor', 'Largely misses the description; requires rework'],
  ['Failing', 'Does not meet the description at all']
])

export interface FocusText {
  readonly checks: readonly string[]
  readonly redFlags: readonly string[]
}

/** Domain focus from the LLM Council rubrics: extra checks, and red flags that are critical findings. */
export const FOCUS_TEXT: Readonly<Record<FocusArea, FocusText>> = {
  security: {
    checks: [
      'Input validation and sanitisation',
      'Authentication and authorisation correctness',
      'Secure data handling (encryption, secrets management)',
      'Protection against the OWASP Top 10 vulnerabilities',
      'Secure defaults and fail-safe behaviour'
    ],
    redFlags: [
      'Hardcoded credentials or secrets',
      'SQL injection vulnerabilities',
      'XSS vulnerabilities',
      'Insecure deserialisation',
      'Missing authentication on sensitive endpoints'
    ]
  },
  performance: {
    checks: [
      'Algorithm complexity (Big O analysis)',
      'Database query efficiency',
      'Memory usage patterns',
      'Caching strategy appropriateness',
      'Concurrency handling'
    ],
    redFlags: [
      'O(n²) or worse where O(n) is possible',
      'N+1 query patterns',
      'Unbounded memory growth',
      'Missing pagination on large datasets'
    ]
  },
  accessibility: {
    checks: [
      'WCAG 2.1 AA compliance',
      'Keyboard navigation support',
      'Screen reader compatibility',
      'Colour contrast ratios',
      'Alternative text for images'
    ],
    redFlags: [
      'Missing alt text on meaningful images',
      'Inaccessible form controls',
      'Colour-only information conveyance',
      'Missing focus indicators'
    ]
  }
}
