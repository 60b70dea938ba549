import { expect, it } from 'vitest'
import { bundleIsFresh } from './global-setup.js'

it('the bundles the end-to-end tests run are those the source under test builds', () => {
  // The test setup builds them; a run that skipped it would test a stale dist/.
  expect(bundleIsFresh()).toBe(true)
})
