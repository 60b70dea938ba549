import type { Evaluation } from '../engine/evaluation.js'
import { writeState, type CommentState } from './history.js'
import { COMMENT_LIMIT, renderMarkdown } from './markdown.js'

/** The check's name, and so its comment's marker, unless `check-name` says otherwise. */
export const DEFAULT_CHECK_NAME = 'rubric-council'

/**
 * The hidden first line that finds our comment again: one comment per pull request and check
 * name. Characters that could end the HTML comment are replaced.
 */
export function commentMarker(checkName: string): string {
  return `<!-- rubric-council:${checkName.replace(/-->|[\r\n]/g, '_')} -->`
}

/**
 * The sticky comment: the marker, the report (with the iteration history), and the history with
 * what else the bot remembers (`kept`: the sealed judgement, an acceptance) as hidden state,
 * together never over GitHub's 65,536 characters.
 */
export function renderComment(
  evaluation: Evaluation,
  checkName: string,
  kept: Omit<CommentState, 'history'> = {},
  limit = COMMENT_LIMIT
): string {
  const marker = `${commentMarker(checkName)}\n`
  const state = `\n${writeState({ ...kept, history: evaluation.history ?? [] })}\n`
  const report = renderMarkdown(evaluation, {
    budget: limit - marker.length - state.length,
    nextStep: 'action'
  })
  return marker + report + state
}
