import { describe, expect, it } from 'vitest'
import type { PullRequestRun } from '../../src/github/event.js'
import { stickyComment } from '../../src/action/sticky-comment.js'
import { commentMarkdown } from '../../scripts/screenshots.js'
import { MemoryGitHub } from '../helpers/memory-github.js'
import { recordingIO } from '../helpers/recording-io.js'
import {
  SAMPLE_PULL_REQUEST,
  samplePublication,
  sampleEvaluations
} from '../helpers/sample-evaluations.js'

/*
 * The README's pictures of the comment (scripts/screenshots.ts) are what the action posts: the
 * sample's publication, planned as a review plans it, written by the action's sticky-comment
 * writer to GitHub at its port, is the Markdown the pictures are drawn from, to the character.
 */

const RUN: PullRequestRun = {
  kind: 'pull_request',
  event: 'pull_request',
  owner: 'octo-org',
  repo: 'octo-repo',
  action: 'opened',
  baseRubricOnly: false,
  pr: {
    ...SAMPLE_PULL_REQUEST,
    title: 'Search: rank by intent',
    body: '',
    baseSha: '0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c',
    baseRef: 'main',
    defaultBranch: 'main',
    headRepository: 'octo-org/octo-repo',
    headRef: 'search-intent',
    draft: false,
    labels: []
  }
}

describe.each(sampleEvaluations().map(s => [s.name, s] as const))(
  'the %s picture',
  (_name, sample) => {
    it('is drawn from the comment the action posts, its "Next:" line included', async () => {
      const github = new MemoryGitHub()
      const publication = samplePublication(sample.evaluation)
      const { history, ...kept } = publication.state
      const url = await stickyComment(
        github,
        RUN,
        'rubric-council',
        { history, render: publication.comment, read: { history: [] }, kept, existing: [] },
        recordingIO()
      )
      expect(url).toBeDefined()
      const posted = github.commentsOn(SAMPLE_PULL_REQUEST.number).map(c => c.body)
      expect(posted).toEqual([commentMarkdown(sample)])
      const next = /^\*\*Next:\*\* \S/m
      if (sample.verdict === 'PASS') expect(posted[0]).not.toMatch(next)
      else expect(posted[0]).toMatch(next)
    })
  }
)
