import type { Evaluation } from '../engine/evaluation.js'
import type { HistoryEntry } from '../engine/history.js'
import { formatIssue } from '../rubric/errors.js'
import type { Block, Piece, Section } from './budget.js'
import { code, commitCode, escapeCell, escapeSummary, idCode } from './escape.js'
import { codeBlock, ICON, prose, REASON_FLOOR } from './markdown-pieces.js'

// The Markdown report's parts about the rubric and the pull request's earlier iterations.

/** Said before anything else: a rubric the PR weakens, or read from somewhere unexpected. */
export function rubricAlerts(evaluation: Evaluation): Piece[] {
  const review = evaluation.rubricReview
  const out: Piece[] = []
  const inherited = evaluation.rubric.inherited
  if (inherited?.weakened) {
    out.push(
      '> [!WARNING]\n> This rubric **weakens the rubric it extends**. Weakened: ',
      prose(
        inherited.overrides
          .filter(c => c.weakens)
          .map(c => c.text)
          .join('; '),
        REASON_FLOOR
      ),
      '\n\n'
    )
  }
  if (!review) return out
  if (review.diff?.weakened) {
    const weakening = review.diff.changes.filter(c => c.weakens).map(c => c.text)
    out.push(
      review.source === 'base'
        ? '> [!WARNING]\n> This pull request **weakens the rubric** that grades it; the verdict uses the rubric from the base branch. Weakened: '
        : '> [!CAUTION]\n> This pull request **weakens the rubric** that grades it, and the rubric is read from the pull request itself (`rubric-source: head`). Weakened: ',
      prose(weakening.join('; '), REASON_FLOOR),
      '\n\n'
    )
  }
  if (review.note) out.push('> [!NOTE]\n> ', prose(review.note, REASON_FLOOR), '\n\n')
  return out
}

export function rubricSection(evaluation: Evaluation): Section {
  const { rubric } = evaluation
  const facts = [
    `Path: ${code(rubric.path)}`,
    `source: ${rubric.source === 'checker' ? 'the `checker` input' : 'file'}`,
    rubric.hash ? `hash: \`${rubric.hash}\`` : 'hash: none (not read)'
  ].join(' · ')
  const blocks: Block[] = []
  if (rubric.problems.length > 0) {
    blocks.push({
      pieces: ['Problems:\n\n', codeBlock(rubric.problems.map(formatIssue).join('\n'))],
      priority: 95
    })
  }
  const inherited = rubric.inherited
  if (inherited) {
    blocks.push({
      pieces: [
        `Extends ${inherited.from.map(code).join(', ')}`,
        ...(inherited.overrides.length === 0
          ? ['; overrides none of its rules.\n\n']
          : [
              '; this rubric overrides:\n\n',
              ...inherited.overrides.flatMap(c => [
                `- ${c.weakens ? '⚠️ **weakens:** ' : ''}`,
                prose(c.text),
                '\n'
              ]),
              '\n'
            ])
      ],
      priority: 86
    })
  }
  const review = evaluation.rubricReview
  const diff = review?.diff
  if (review && diff && diff.changes.length > 0) {
    blocks.push({
      pieces: [
        `This pull request changes the rubric${review.source === 'base' ? ' (the verdict uses the base branch’s)' : ''}:\n\n`,
        ...diff.changes.flatMap(c => [
          `- ${c.weakens ? '⚠️ **weakens:** ' : ''}`,
          prose(c.text),
          '\n'
        ]),
        '\n'
      ],
      priority: 85
    })
  }
  if (rubric.materialised) {
    blocks.push({
      pieces: [
        'Materialised from the `checker` input; copy it to `.github/rubric.md` to grow it:\n\n',
        codeBlock(rubric.materialised, 'markdown')
      ],
      priority: 5
    })
  }
  const source = evaluation.rubricReview ? ` · read from the ${evaluation.rubricReview.source}` : ''
  const changed =
    diff && diff.changes.length > 0
      ? ` · changed by this PR${diff.weakened ? ', weakened' : ''}`
      : ''
  return {
    open: [
      `<details>\n<summary><b>Rubric</b>${rubric.title ? ` · ${escapeSummary(rubric.title)}` : ''}${source}${changed}</summary>\n\n${facts}\n\n`
    ],
    blocks,
    close: ['\n</details>\n\n'],
    omitted: () => '*The rubric text is not shown here.*\n'
  }
}

export function historySection(history: readonly HistoryEntry[]): Section {
  const rows = history.map((entry, i) => {
    const previous = history[i - 1]
    const changed = previous !== undefined && previous.rubricHash !== entry.rubricHash
    const cells = [
      String(entry.iteration),
      commitCode(entry.commit),
      `${ICON[entry.verdict]} ${entry.verdict}`,
      escapeCell(
        [entry.summary || entry.reasons.join(', ') || '—', entry.note]
          .filter(t => t !== undefined)
          .join(' · ')
      ),
      `${idCode(entry.rubricHash)}${changed ? ' ✎ changed' : ''}`
    ]
    // The newest iterations matter most; the oldest go first when space runs out.
    return { pieces: [`| ${cells.join(' | ')} |\n`], priority: 40 + (i / history.length) * 10 }
  })
  return {
    open: [
      `<details>\n<summary><b>Iterations</b> · ${history.length}</summary>\n\n`,
      '| # | commit | verdict | summary | rubric |\n| --- | --- | --- | --- | --- |\n'
    ],
    blocks: rows,
    close: ['\n</details>\n\n'],
    omitted: n => `| | | | ${n} earlier iteration${n === 1 ? '' : 's'} not shown | |\n`
  }
}
