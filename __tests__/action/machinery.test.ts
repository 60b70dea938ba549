import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { machineryOf, runningWorkflow } from '../../src/action/machinery.js'

const WORKSPACE = '/home/runner/work/octo-repo/octo-repo'
/** The action from the marketplace: its bundle is outside the workspace. */
const PUBLISHED = '/home/runner/work/_actions/rubric-council/rubric-council/v1/dist'
const CENTRAL = 'octo-org/.github/.github/workflows/rubric-council.yml@refs/heads/main'
const OWN = 'octo-org/octo-repo/.github/workflows/rubric-council.yml@refs/pull/7/merge'

describe('runningWorkflow', () => {
  it('reads the repository, file and ref of GITHUB_WORKFLOW_REF; central when the repository is another', () => {
    expect(runningWorkflow(CENTRAL, 'octo-org/octo-repo')).toEqual({
      repository: 'octo-org/.github',
      path: '.github/workflows/rubric-council.yml',
      ref: 'refs/heads/main',
      central: true
    })
    expect(runningWorkflow(OWN, 'octo-org/octo-repo')?.central).toBe(false)
  })

  it('compares repositories without case, as GitHub does', () => {
    expect(runningWorkflow(OWN, 'Octo-Org/Octo-Repo')?.central).toBe(false)
  })

  it('is no central workflow when either variable is missing or not of the runner’s form', () => {
    expect(runningWorkflow(undefined, 'octo-org/octo-repo')).toBeUndefined()
    expect(runningWorkflow('rubric-council.yml', 'octo-org/octo-repo')).toBeUndefined()
    expect(runningWorkflow(CENTRAL, undefined)?.central).toBe(false)
    expect(runningWorkflow(CENTRAL, '')?.central).toBe(false)
  })
})

describe('machineryOf', () => {
  const own = machineryOf(WORKSPACE, PUBLISHED, runningWorkflow(OWN, 'octo-org/octo-repo'))
  const central = machineryOf(WORKSPACE, PUBLISHED, runningWorkflow(CENTRAL, 'octo-org/octo-repo'))

  it('counts the repository’s workflows under a workflow of its own (or an unknown one)', () => {
    expect(own('.github/workflows/ci.yml')).toBe(true)
    expect(machineryOf(WORKSPACE, PUBLISHED)('.github/workflows/ci.yml')).toBe(true)
  })

  it('does not count them under a central workflow, which the pull request cannot change', () => {
    expect(central('.github/workflows/ci.yml')).toBe(false)
    expect(central('.github/workflows/rubric-council.yml')).toBe(false)
  })

  it('still counts local actions under a central workflow: `uses: ./.github/actions/…` runs the checkout', () => {
    expect(central('.github/actions/setup/action.yml')).toBe(true)
  })

  it('still counts the action’s own files under a central workflow when it runs from the checkout (`uses: ./`)', () => {
    const fromCheckout = machineryOf(
      WORKSPACE,
      join(WORKSPACE, 'dist'),
      runningWorkflow(CENTRAL, 'octo-org/octo-repo')
    )
    expect(['action.yml', 'dist/index.js', '.github/workflows/x.yml'].map(fromCheckout)).toEqual([
      true,
      true,
      false
    ])
  })

  it('counts no other file', () => {
    expect([own('src/app.ts'), central('src/app.ts'), central('.github/rubric.md')]).toEqual([
      false,
      false,
      false
    ])
  })
})
