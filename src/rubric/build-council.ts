import { DEFAULT_MAX_EXTRA_VOTES, DEFAULT_SAMPLES } from './defaults.js'
import type { AtPath } from './errors.js'
import type { CheckedFrontMatter } from './front-matter.js'
import type { CouncilConfig, MemberSettings } from './types.js'

type RawCouncil = NonNullable<CheckedFrontMatter['values']['council']>
type Member = NonNullable<RawCouncil['models']>[number]

const modelOf = (member: Member): string => (typeof member === 'string' ? member : member.model)

/**
 * The rubric's council: members and reserves by model, the efforts they name for themselves, and
 * the rules between its fields (a judge named twice, a quorum the council cannot reach).
 */
export function buildCouncil(
  raw: RawCouncil | undefined,
  atPath: AtPath,
  failed: (...fields: string[]) => boolean
): CouncilConfig {
  const members = raw?.models ?? []
  const reserves = raw?.reserve ?? []
  const models = members.map(modelOf)
  const reserve = reserves.map(modelOf)
  checkJudgesOnce(models, reserve, atPath)
  checkExtraVotes(raw, atPath)
  checkQuorum(raw, models.length, atPath, failed)
  const named = [...members, ...reserves].flatMap(member =>
    typeof member === 'string' || member.reasoning === undefined
      ? []
      : [[member.model, member.reasoning] as const]
  )
  const settings = [...members, ...reserves].flatMap(member => {
    if (typeof member === 'string') return []
    const own: MemberSettings = {
      ...(member.window !== undefined && { window: member.window }),
      ...(member.max_output_tokens !== undefined && { maxOutputTokens: member.max_output_tokens }),
      ...(member.temperature !== undefined && { temperature: member.temperature })
    }
    return Object.keys(own).length > 0 ? [[member.model, own] as const] : []
  })
  return {
    models,
    ...(raw?.reasoning !== undefined && { reasoning: raw.reasoning }),
    ...(named.length > 0 && { memberReasoning: Object.fromEntries(named) }),
    ...(settings.length > 0 && { memberSettings: Object.fromEntries(settings) }),
    ...(raw?.samples !== undefined && { samples: raw.samples }),
    ...(raw?.quorum !== undefined && { quorum: raw.quorum }),
    ...(raw?.timeout !== undefined && { timeout: raw.timeout }),
    reserve,
    maxExtraVotes: raw?.max_extra_votes ?? raw?.tie_breaks ?? DEFAULT_MAX_EXTRA_VOTES
  }
}

function checkJudgesOnce(
  models: readonly string[],
  reserve: readonly string[],
  atPath: AtPath
): void {
  const seenModels = new Set<string>()
  models.forEach((model, i) => {
    if (seenModels.has(model)) {
      atPath(
        ['council', 'models', i],
        'council',
        `council.models lists "${model}" twice; use council.samples to ask a judge more than once`
      )
    }
    seenModels.add(model)
  })
  const seenReserves = new Set<string>()
  reserve.forEach((model, i) => {
    // A reserve's vote counts only where it has not voted: a member, or a reserve named twice,
    // would vote twice on one must-have.
    if (seenModels.has(model)) {
      atPath(
        ['council', 'reserve', i],
        'council',
        `council.reserve names "${model}", a member of council.models; a reserve must be another model, whose vote is independent of the members'`
      )
    } else if (seenReserves.has(model)) {
      atPath(['council', 'reserve', i], 'council', `council.reserve lists "${model}" twice`)
    }
    seenReserves.add(model)
  })
}

function checkExtraVotes(raw: RawCouncil | undefined, atPath: AtPath): void {
  if (raw?.tie_breaks === undefined || raw.max_extra_votes === undefined) return
  atPath(
    ['council', 'tie_breaks'],
    'council',
    `council.tie_breaks is the old name of council.max_extra_votes; give only max_extra_votes (got tie_breaks: ${raw.tie_breaks} and max_extra_votes: ${raw.max_extra_votes})`,
    'key'
  )
}

function checkQuorum(
  raw: RawCouncil | undefined,
  members: number,
  atPath: AtPath,
  failed: (...fields: string[]) => boolean
): void {
  const quorum = raw?.quorum
  const perModel = raw?.samples ?? DEFAULT_SAMPLES
  const answers = members * perModel
  if (
    quorum === undefined ||
    members === 0 ||
    quorum <= answers ||
    failed('council.models', 'council.samples')
  ) {
    return
  }
  atPath(
    ['council', 'quorum'],
    'council',
    `council.quorum (${quorum}) exceeds the ${answers} answers the council can give ` +
      `(${members} model${members === 1 ? '' : 's'} × ${perModel} sample${perModel === 1 ? '' : 's'})`
  )
}
