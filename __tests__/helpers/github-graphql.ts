import {
  buildClientSchema,
  execute,
  GraphQLError,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type IntrospectionQuery
} from 'graphql'

/**
 * GitHub's GraphQL endpoint (`POST /graphql`) for the stand-in, over the stand-in's files and pull
 * requests. Its rules, as GitHub documents them
 * (https://docs.github.com/graphql/guides/forming-calls-with-graphql):
 * - a token is required (401 otherwise);
 * - the body is JSON with a `query` string (400 "Problems parsing JSON" otherwise);
 * - the query is validated against GitHub's public schema (@octokit/graphql-schema): a field,
 *   argument, fragment or variable the schema does not have is an error answered with status 200
 *   and `errors`, and no `data`;
 * - a repository or pull request that does not exist, or that the token may not read, is null
 *   with an error of `type` NOT_FOUND or FORBIDDEN at its path, and the rest is answered;
 * - `object(expression:)` takes a rev-parse expression `<rev>:<path>`; a blob's `text` is null
 *   when it is binary (a NUL byte, git's test), `isBinary` says so.
 * It stores nothing: the stand-in's state is the data.
 */

/** What the endpoint reads of the stand-in. */
export interface GraphQLView {
  readonly owner: string
  readonly repo: string
  /** A branch's name (or a commit) → its commit. */
  readonly commitOf: (rev: string) => string
  /** A commit's files by path. */
  readonly filesAt: (commit: string) => ReadonlyMap<string, Buffer> | undefined
  /** A pull request's JSON as the REST API serves it. */
  readonly pull: (number: number) => { readonly head?: { readonly sha?: string } } | undefined
  /** Whether the token holds `permission` at read. */
  readonly canRead: (permission: 'contents' | 'pull-requests') => boolean
}

export interface GraphQLReply {
  readonly status: number
  readonly body: unknown
}

const DOCS = 'https://docs.github.com/graphql'

let schema: Promise<GraphQLSchema> | undefined
/** GitHub's public schema, built once a process (half a second), when first asked for. */
function githubSchema(): Promise<GraphQLSchema> {
  schema ??= import('@octokit/graphql-schema').then(({ schema: published }) => {
    const json = published.json as IntrospectionQuery | { data: IntrospectionQuery }
    return buildClientSchema('data' in json ? json.data : json)
  })
  return schema
}

/** An error GitHub answers with a `type` beside its message. */
class TypedError extends GraphQLError {
  constructor(
    readonly type: 'NOT_FOUND' | 'FORBIDDEN',
    message: string
  ) {
    super(message)
  }
}

/** One POST to /graphql; `view` undefined when no token the stand-in knows came with it. */
export async function graphqlReply(
  view: GraphQLView | undefined,
  body: { readonly json: boolean; readonly value: unknown }
): Promise<GraphQLReply> {
  if (view === undefined) {
    return {
      status: 401,
      body: { message: 'This endpoint requires you to be authenticated.', documentation_url: DOCS }
    }
  }
  const request = body.value as { query?: unknown; variables?: unknown } | undefined
  if (!body.json || typeof request?.query !== 'string') {
    return { status: 400, body: { message: 'Problems parsing JSON', documentation_url: DOCS } }
  }
  let document: DocumentNode
  try {
    document = parse(request.query)
  } catch (error) {
    return { status: 200, body: { errors: [{ message: (error as Error).message }] } }
  }
  const github = await githubSchema()
  const invalid = validate(github, document)
  if (invalid.length > 0) {
    return {
      status: 200,
      body: { errors: invalid.map(e => ({ message: e.message, locations: e.locations })) }
    }
  }
  const result = execute({
    schema: github,
    document,
    rootValue: { repository: (args: { owner: string; name: string }) => repository(view, args) },
    variableValues: (request.variables ?? {}) as Record<string, unknown>
  }) as { data?: unknown; errors?: readonly GraphQLError[] }
  const errors = result.errors?.map(e => ({
    ...(e.originalError instanceof TypedError && { type: e.originalError.type }),
    path: e.path,
    locations: e.locations,
    message: e.message
  }))
  return { status: 200, body: { data: result.data ?? null, ...(errors && { errors }) } }
}

function repository(view: GraphQLView, args: { owner: string; name: string }): object {
  const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase()
  if (!same(args.owner, view.owner) || !same(args.name, view.repo)) {
    throw new TypedError(
      'NOT_FOUND',
      `Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`
    )
  }
  return {
    pullRequest: ({ number }: { number: number }) => {
      if (!view.canRead('pull-requests'))
        throw new TypedError('FORBIDDEN', 'Resource not accessible by integration')
      const pr = view.pull(number)
      if (pr === undefined) {
        throw new TypedError(
          'NOT_FOUND',
          `Could not resolve to a PullRequest with the number of ${number}.`
        )
      }
      return { headRefOid: pr.head?.sha }
    },
    object: ({ expression }: { expression?: string | null }) => {
      if (!view.canRead('contents'))
        throw new TypedError('FORBIDDEN', 'Resource not accessible by integration')
      return expression == null ? null : gitObject(view, expression)
    }
  }
}

/** `<rev>:<path>` as rev-parse reads it: the blob or tree there, or null. */
function gitObject(view: GraphQLView, expression: string): object | null {
  const colon = expression.indexOf(':')
  if (colon === -1) return null
  const files = view.filesAt(view.commitOf(expression.slice(0, colon)))
  if (files === undefined) return null
  const path = expression.slice(colon + 1).replace(/^\/+|\/+$/g, '')
  const file = files.get(path)
  if (file !== undefined) return blob(file)
  const prefix = path === '' ? '' : `${path}/`
  const children = entriesAt(files, path)
  if (children.size === 0) return null
  return {
    __typename: 'Tree',
    entries: [...children.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, content]) => ({
        name,
        path: `${prefix}${name}`,
        type: content === undefined ? 'tree' : 'blob',
        // The stand-in's files are regular files; its folders are trees.
        mode: content === undefined ? 0o040000 : 0o100644,
        object: () =>
          content === undefined ? gitObject(view, `${expression}/${name}`) : blob(content)
      }))
  }
}

/**
 * A folder's entries in a commit's flat map of files: each file's content by its name, and each
 * folder's name with undefined. None when there is no such folder.
 */
export function entriesAt(
  files: Iterable<[string, Buffer]>,
  folder: string
): Map<string, Buffer | undefined> {
  const prefix = folder === '' ? '' : `${folder}/`
  const entries = new Map<string, Buffer | undefined>()
  for (const [name, content] of files) {
    if (!name.startsWith(prefix)) continue
    const rest = name.slice(prefix.length)
    const slash = rest.indexOf('/')
    entries.set(slash === -1 ? rest : rest.slice(0, slash), slash === -1 ? content : undefined)
  }
  return entries
}

function blob(content: Buffer): object {
  const binary = content.subarray(0, 8000).includes(0)
  return {
    __typename: 'Blob',
    byteSize: content.length,
    isBinary: binary,
    isTruncated: false,
    text: binary ? null : content.toString('utf8')
  }
}
