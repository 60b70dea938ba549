import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeCycle, folderCycles } from './helpers/folder-cycles.js'

/**
 * Data flows one way between the folders of src/: a folder that imports a folder importing it
 * (directly, or around a longer loop) has no layer of its own, and neither can change alone.
 */

const SRC = join(import.meta.dirname, '..', 'src')

describe('the folders of src/', () => {
  it('import no folder that imports them', () => {
    expect(folderCycles(SRC).map(describeCycle)).toEqual([])
  })
})

describe('folderCycles', () => {
  function tree(files: Readonly<Record<string, string>>): string {
    const root = join(mkdtempSync(join(tmpdir(), 'rc-architecture-')), 'src')
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true })
      writeFileSync(join(root, path), text)
    }
    return root
  }

  it('names the files of a two-folder cycle', () => {
    const root = tree({
      'report/markdown.ts': "import { say } from '../publish/sentences.js'\n",
      'report/escape.ts': 'export const escape = 1\n',
      'publish/sentences.ts': 'export const say = 1\n',
      'publish/plan.ts': "import { escape } from '../report/escape.js'\n"
    })
    expect(folderCycles(root).map(describeCycle)).toEqual([
      [
        'publish/, report/ import each other:',
        '  src/publish/plan.ts imports src/report/escape.ts',
        '  src/report/markdown.ts imports src/publish/sentences.ts'
      ].join('\n')
    ])
  })

  it('finds a longer cycle, through type-only imports, re-exports and import()', () => {
    const root = tree({
      'a/x.ts': "import type { Y } from '../b/y.js'\n",
      'b/y.ts': "export * from '../c/z.js'\n",
      'c/z.ts': "export const load = () => import('../a/x.js')\n",
      'd/w.ts': "import '../a/x.js'\n"
    })
    expect(folderCycles(root)).toEqual([
      {
        folders: ['a/', 'b/', 'c/'],
        imports: [
          { file: 'src/a/x.ts', imports: 'src/b/y.ts' },
          { file: 'src/b/y.ts', imports: 'src/c/z.ts' },
          { file: 'src/c/z.ts', imports: 'src/a/x.ts' }
        ]
      }
    ])
  })

  it('takes a file directly in the tree for a node of its own', () => {
    const layered = tree({
      'main.ts': "import { run } from './action/run.js'\n",
      'version.ts': 'export const VERSION = "1"\n',
      'action/run.ts': "import { VERSION } from '../version.js'\nimport './helper.js'\n",
      'action/helper.ts': "import 'node:fs'\nimport 'zod'\n"
    })
    expect(folderCycles(layered)).toEqual([])
    const looped = tree({
      'main.ts': "import { run } from './action/run.js'\n",
      'action/run.ts': "import { main } from '../main.js'\n"
    })
    expect(folderCycles(looped).map(c => c.folders)).toEqual([['action/', 'main.ts']])
  })
})
