interface SecretPattern {
  /** Named in the redaction note and the coverage receipt. */
  readonly kind: string
  /** With the `g` flag, for `matchAll`. */
  readonly pattern: RegExp
  /** A second look at a match, for patterns that also catch ordinary text. */
  readonly accept?: (match: RegExpExecArray) => boolean
}

/**
 * What a secret looks like. Provider keys have fixed prefixes and lengths; the lookbehinds keep
 * them from matching inside longer identifiers. The last pattern catches `password = "…"` and the
 * like: it needs a quoted value, so `password: string` and `const tokenizer = new Tokenizer()`
 * are left alone.
 */
const PATTERNS: readonly SecretPattern[] = [
  { kind: 'private key', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  {
    kind: 'AWS access key',
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])/g
  },
  {
    kind: 'GitHub token',
    pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g
  },
  { kind: 'Anthropic API key', pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  {
    kind: 'OpenAI API key',
    pattern: /(?<![A-Za-z0-9_-])sk-(?!ant-)[A-Za-z0-9_-]{20,}/g,
    // Random keys hold digits; hyphenated words such as `sk-learn-contrib-project` do not.
    accept: match => /[0-9]/.test(match[0])
  },
  { kind: 'Slack token', pattern: /(?<![A-Za-z0-9_-])xox[abprs]-[A-Za-z0-9-]{10,}/g },
  {
    kind: 'Google API key',
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g
  },
  { kind: 'Stripe key', pattern: /(?<![A-Za-z0-9_])[sr]k_live_[0-9A-Za-z]{16,}/g },
  {
    kind: 'JWT',
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g
  },
  {
    kind: 'password or secret assignment',
    pattern:
      /(?:password|passwd|secret|token|api[_-]?key|apikey|private[_-]?key)(?:[_-]?key)?["']?\s*(?::=|=>|[:=])\s*(["'`])([^\s"'`]{8,})\1/gi,
    accept: match => !isPlaceholder(match[2] ?? '')
  }
]

/** `${DB_PASSWORD}`, `{{ token }}`, `<your-key>`, `********`: a slot for a secret, not one. */
function isPlaceholder(value: string): boolean {
  return /^[$<%{]/.test(value) || /^(.)\1*$/.test(value)
}

/** The kinds of secret `text` seems to hold, in the order of `PATTERNS`. */
export function secretKinds(text: string): string[] {
  return PATTERNS.filter(({ pattern, accept }) => {
    // Every match, not just the first: the first may be a placeholder and a later one real.
    // (matchAll works on a copy of the regex, so the shared `g` patterns keep no state.)
    for (const match of text.matchAll(pattern)) {
      if (accept === undefined || accept(match)) return true
    }
    return false
  }).map(({ kind }) => kind)
}

const HUNK_HEADER = /^(@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)(.*)$/

/**
 * Replaces every hunk of a file's patch that looks like it holds a secret with a one-line note,
 * keeping its `@@` header. All lines of the hunk are scanned, context too: context is sent to the
 * judges as well, and a secret already in the repository must not travel further.
 */
export function redactPatch(patch: string): { patch: string; hunks: number; kinds: string[] } {
  const lines = patch.split('\n')
  const firstHunk = lines.findIndex(line => line.startsWith('@@'))
  if (firstHunk === -1) return { patch, hunks: 0, kinds: [] }

  const output = lines.slice(0, firstHunk)
  const kinds = new Set<string>()
  let hunks = 0
  let start = firstHunk
  while (start < lines.length) {
    let end = start + 1
    // Inside hunks only hunk headers start with `@@`: body lines start with ` +-\`.
    while (end < lines.length && !(lines[end] ?? '').startsWith('@@')) end++
    const header = lines[start] ?? ''
    const body = lines.slice(start + 1, end)
    // The text after the second `@@` is a line of the old file (the enclosing function): scanned too.
    const found = secretKinds([header, ...body].join('\n'))
    if (found.length === 0) {
      output.push(header, ...body)
    } else {
      hunks++
      for (const kind of found) kinds.add(kind)
      const trailing = body.at(-1) === '' && end === lines.length ? [''] : []
      output.push(
        bareHeader(header),
        `[hunk redacted by rubric-council: it looks like it contains a secret (${found.join(', ')})]`,
        ...trailing
      )
    }
    start = end
  }
  return { patch: output.join('\n'), hunks, kinds: [...kinds] }
}

/** `@@ -1,3 +1,4 @@ const key = …` → `@@ -1,3 +1,4 @@`: the line ranges without the old text. */
function bareHeader(header: string): string {
  return HUNK_HEADER.exec(header)?.[1] ?? '@@'
}
