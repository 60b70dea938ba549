import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import ts from 'typescript'

/**
 * The folders of a source tree that import each other, directly or around a longer loop: the
 * strongly connected components of the graph whose nodes are the tree's top-level folders (a file
 * directly in the tree is a node of its own) and whose edges are relative imports of any kind
 * (`import`, `import type`, `export … from`, `import()`), with the files that make each edge.
 */

/** One file's import of a file in another node, both relative to the tree's parent. */
export interface CrossImport {
  readonly file: string
  readonly imports: string
}

export interface FolderCycle {
  /** The nodes, sorted: `report/` for a folder, `version.ts` for a file directly in the tree. */
  readonly folders: readonly string[]
  /** Every import from one of them into another, sorted. */
  readonly imports: readonly CrossImport[]
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(ts|mts|js|mjs)$/.test(entry.name) ? [path] : []
  })
}

function nodeOf(root: string, file: string): string {
  const parts = relative(root, file).split(sep)
  return parts.length > 1 ? `${parts[0] ?? ''}/` : (parts[0] ?? '')
}

/** The file a relative specifier names: ESM imports of TypeScript name the `.js` it compiles to. */
function target(file: string, specifier: string): string {
  const path = resolve(dirname(file), specifier)
  const source = path.replace(/\.js$/, '.ts')
  return existsSync(source) ? source : path
}

function crossImports(root: string): Map<string, Map<string, CrossImport[]>> {
  const edges = new Map<string, Map<string, CrossImport[]>>()
  const shown = (file: string): string => relative(dirname(root), file).split(sep).join('/')
  for (const file of sourceFiles(root)) {
    const from = nodeOf(root, file)
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('./') && !fileName.startsWith('../')) continue
      const imported = target(file, fileName)
      if (relative(root, imported).startsWith('..')) continue
      const to = nodeOf(root, imported)
      if (to === from) continue
      const out = edges.get(from) ?? new Map<string, CrossImport[]>()
      edges.set(from, out)
      out.set(to, [...(out.get(to) ?? []), { file: shown(file), imports: shown(imported) }])
    }
  }
  return edges
}

/** Tarjan's strongly connected components of more than one node. */
function components(edges: ReadonlyMap<string, ReadonlyMap<string, unknown>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[][] = []
  const visit = (node: string): void => {
    index.set(node, index.size)
    low.set(node, index.get(node) ?? 0)
    stack.push(node)
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0))
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let top: string | undefined
    do {
      top = stack.pop()
      if (top !== undefined) component.push(top)
    } while (top !== undefined && top !== node)
    if (component.length > 1) found.push(component.sort())
  }
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node)
  return found.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''))
}

/** The folder cycles of the tree at `root` (a `src/`), each with the imports that make it. */
export function folderCycles(root: string): FolderCycle[] {
  const edges = crossImports(root)
  return components(edges).map(folders => ({
    folders,
    imports: folders
      .flatMap(from => folders.flatMap(to => edges.get(from)?.get(to) ?? []))
      .sort((a, b) => a.file.localeCompare(b.file) || a.imports.localeCompare(b.imports))
  }))
}

/** A cycle as a reader fixes it: the folders, then each file that imports across them. */
export function describeCycle(cycle: FolderCycle): string {
  const lines = cycle.imports.map(i => `  ${i.file} imports ${i.imports}`)
  return [`${cycle.folders.join(', ')} import each other:`, ...lines].join('\n')
}
