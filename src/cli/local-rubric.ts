import { resolve } from 'node:path'
import { defaultRecordPath } from '../rubric/calibration-record.js'
import { recordRead, recordTextOf } from '../engine/calibration-record.js'
import {
  chooseLocalRubric,
  outsideChoice,
  type LocalChoice,
  type LocalRubricFiles
} from '../local/rubric-choice.js'
import { repositoryPath, rubricAtCommit, type LocalPlace } from '../local/place.js'
import { readRubricFile } from '../rubric/load.js'
import type { CliIo } from './io.js'
import { withUpstreams } from './upstream.js'

/**
 * The rubric at `path` (as the user named it, from `cwd`) a local check grades by, as
 * `chooseLocalRubric` chooses it from the files read here: the working tree's, inside the
 * repository only, and the base's; what the base's extends is read when it grades.
 */
export async function readLocalRubric(
  place: LocalPlace,
  path: string,
  io: Pick<CliIo, 'cwd' | 'env' | 'stderr'>
): Promise<LocalChoice> {
  const repoPath = repositoryPath(place.root, io.cwd, path)
  if (repoPath === undefined) return outsideChoice(place, path)
  const working = await readRubricFile(resolve(io.cwd, path), path, place.root)
  const base = place.source === 'session' ? undefined : place.base
  const atBase = base && (await rubricAtCommit(place.root, base.commit, repoPath, path))
  const records = await localRecords(place, path, io.cwd)
  const chosen = chooseLocalRubric(place, { path, repoPath, working, atBase, records })
  if (chosen.choice.review?.source !== 'base') return chosen
  return {
    ...chosen,
    choice: { ...chosen.choice, rubric: await withUpstreams(io, chosen.choice.rubric) }
  }
}

/**
 * The calibration record beside the rubric at `path`: the working tree's, and the base's at its
 * commit, each read as the rubric is (a file of its own, inside the repository).
 */
async function localRecords(
  place: LocalPlace,
  path: string,
  cwd: string
): Promise<NonNullable<LocalRubricFiles['records']>> {
  const local = defaultRecordPath(path)
  const repoPath = repositoryPath(place.root, cwd, local)
  const working = recordRead(
    local,
    recordTextOf(await readRubricFile(resolve(cwd, local), local, place.root))
  )
  const base = place.source === 'session' ? undefined : place.base
  if (base === undefined || repoPath === undefined) return { working }
  const atBase = await rubricAtCommit(place.root, base.commit, repoPath, local)
  return { working, atBase: recordRead(local, recordTextOf(atBase)) }
}
