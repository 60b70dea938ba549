#!/usr/bin/env node
import { requireNode } from './require-node.js'

requireNode('rubric-council')
// Loaded only once the version is known to be good: an older Node may not even parse the bundle.
await import('../dist/cli/index.js')
