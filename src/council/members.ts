import { parseModelId } from '../rubric/model-id.js'
import { closest } from '../rubric/similar.js'
import { MODELS } from './models.js'
import { everyProvider, nonEmpty, providerOf } from './providers/index.js'

type Environment = Readonly<Record<string, string | undefined>>

/**
 * The members when neither the rubric nor the input names any: the default judges of each
 * provider whose key is set, each from a different vendor; with none of those, those of a
 * fallback provider whose key is set (OpenRouter: the same three vendors through it).
 */
export function defaultModels(env: Environment): string[] {
  const judges = (fallback: boolean): string[] =>
    everyProvider().flatMap(([name, { variables, defaultJudges }]) =>
      defaultJudges !== undefined &&
      (defaultJudges.fallback ?? false) === fallback &&
      nonEmpty(env[variables.key]) !== undefined
        ? defaultJudges.models.map(model => `${name}:${model}`)
        : []
    )
  const direct = judges(false)
  return direct.length > 0 ? direct : judges(true)
}

/**
 * The default judges of every provider that has its own (not a fallback's): the council a rubric
 * that names no models meets where every key is set, and what `validate` measures it against.
 */
export function everyDefaultJudge(): string[] {
  return defaultModels(Object.fromEntries(everyProvider().map(([, p]) => [p.variables.key, 'set'])))
}

/** Parses a comma- or newline-separated list of `provider:model` (the `models` input). */
export function parseModelList(text: string): { models: string[]; problems: string[] } {
  const models = text
    .split(/[,\n]/)
    .map(m => m.trim())
    .filter(m => m !== '' && !m.startsWith('#'))
  const problems = models.flatMap(m => {
    const parsed = parseModelId(m)
    return parsed.ok ? [] : [parsed.problem]
  })
  return { models, problems }
}

/**
 * Whether this version knows a member's model (it has a row in `MODELS`, models.ts), and if it does
 * not, the known model it most likely meant, as a whole `provider:model`. Undefined for a known
 * model, for a malformed id (the rubric's schema reports those) and for the models of a provider
 * that serves the user's own (Ollama, OpenAI-compatible endpoints). New models appear before this
 * table knows them: an unknown model is a warning, never an error.
 */
export function unknownModel(member: string): { readonly suggestion?: string } | undefined {
  const parsed = parseModelId(member)
  if (!parsed.ok) return undefined
  const { provider, model } = parsed.value
  const naming = providerOf(parsed.value).tableModels
  if (naming === undefined) return undefined
  const slash = model.lastIndexOf('/')
  const vendor = slash === -1 ? '' : model.slice(0, slash + 1)
  const name = model.slice(slash + 1)
  const whose = naming.vendor ?? vendor.slice(0, -1)
  const written = naming.written ?? ((known: string) => known)
  const rows = Object.entries(MODELS)
  // A vendor the table does not list (OpenRouter's `meta-llama/…`): any known model may be meant.
  const ofVendor = rows.some(([, row]) => row.vendor === whose)
    ? rows.filter(([, row]) => row.vendor === whose)
    : rows
  const known = ofVendor.map(([id]) => written(id))
  if (known.includes(name)) return undefined
  const suggestion = closest(name, known)
  if (suggestion === undefined) return {}
  return { suggestion: `${provider}:${vendor}${suggestion}` }
}
