import { defineConfig } from 'vitest/config'
import { requireNode } from './bin/require-node.js'

requireNode("Rubric Council's test suite")

export default defineConfig({
  test: {
    include: ['__tests__/**/*.test.ts'],
    // The tests' temporary files go into one folder, removed when the run ends.
    globalSetup: ['__tests__/global-setup.ts'],
    // Two cores: keep workers to what the machine has.
    maxWorkers: 2,
    testTimeout: 20_000
  }
})
