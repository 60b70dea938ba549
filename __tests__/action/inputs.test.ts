import { describe, expect, it } from 'vitest'
import { readActionInputs } from '../../src/inputs/action-inputs.js'

/** The inputs as the runner hands them over: '' for every input not set. */
const read = (given: Record<string, string> = {}) => readActionInputs(name => given[name] ?? '')

describe('readActionInputs', () => {
  it('has the defaults action.yml documents', () => {
    expect(read()).toMatchObject({
      rubric: '.github/rubric.md',
      failOn: 'unclear',
      workingDirectory: '.',
      models: [],
      maxEvidenceTokens: 60_000,
      evidenceOrder: 'diff',
      exclude: [],
      rubricSource: 'base',
      comment: 'sticky',
      checkName: 'rubric-council',
      githubToken: '',
      pullRequest: '',
      reviewWorkflow: 'rubric-council.yml',
      dryRun: false,
      gates: 'run',
      gatesJob: 'gates',
      healLimit: 10,
      judgeAfterFailedGate: true
    })
  })

  it('reads lists, case-insensitive choices and numbers', () => {
    expect(
      read({
        models: 'openai:gpt-5.4-nano, anthropic:claude-sonnet-4-6',
        exclude: 'dist/**\n*.snap, docs/*.png',
        'fail-on': 'FAIL',
        samples: '2',
        'review-workflow': 'review.yaml',
        'github-token': 'ghs_x',
        'heal-limit': '0',
        'judge-after-failed-gate': 'False',
        'evidence-order': 'Least-Recently-Changed'
      })
    ).toMatchObject({
      models: ['openai:gpt-5.4-nano', 'anthropic:claude-sonnet-4-6'],
      exclude: ['dist/**', '*.snap', 'docs/*.png'],
      failOn: 'fail',
      samples: 2,
      reviewWorkflow: 'review.yaml',
      githubToken: 'ghs_x',
      healLimit: 0,
      judgeAfterFailedGate: false,
      evidenceOrder: 'least-recently-changed'
    })
  })

  it('takes an unevaluated ${{ github.token }} (a local run) for no token', () => {
    expect(read({ 'github-token': '${{ github.token }}' }).githubToken).toBe('')
  })

  it.each([
    [
      { 'fail-on': 'sometimes' },
      'input "fail-on" is "sometimes"; expected one of unclear, fail, never'
    ],
    [{ samples: '11' }, 'input "samples" is "11"; expected a whole number from 1 to 10'],
    [
      { 'max-evidence-tokens': '10k' },
      'input "max-evidence-tokens" is "10k"; expected a whole number from 1000 to 10000000'
    ],
    [
      { rubric: 'a.md\nb.md' },
      'input "rubric" is "a.md\\nb.md"; expected one path to a rubric file'
    ],
    [{ gates: 'both' }, 'input "gates" is "both"; expected one of run, recorded'],
    [
      { 'evidence-order': 'newest-first' },
      'input "evidence-order" is "newest-first"; expected one of diff, least-recently-changed'
    ],
    [
      { 'judge-after-failed-gate': 'no' },
      'input "judge-after-failed-gate" is "no"; expected one of true, false'
    ],
    [
      { 'review-workflow': '../ci.yml' },
      'input "review-workflow" is "../ci.yml"; expected the file name of a workflow in .github/workflows, such as rubric-council.yml'
    ],
    [
      { 'review-workflow': 'rubric-council' },
      'input "review-workflow" is "rubric-council"; expected the file name of a workflow in .github/workflows, such as rubric-council.yml'
    ],
    [
      { 'check-name': 'a\nb' },
      'input "check-name" is "a\\nb"; expected one line of at most 100 characters'
    ],
    [{ 'dry-run': 'yes' }, 'input "dry-run" is "yes"; expected one of true, false'],
    [{ 'heal-limit': '2.5' }, 'input "heal-limit" is "2.5"; expected a whole number from 0 to 100'],
    [{ 'heal-limit': '-1' }, 'input "heal-limit" is "-1"; expected a whole number from 0 to 100']
  ])('refuses %j, quoting the value: %s', (given, message) => {
    expect(() => read(given)).toThrow(message)
  })
})
