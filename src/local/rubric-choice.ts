import { rubricChanges, unreadExtends, type RubricChoice } from '../engine/rubric-choice.js'
import type { RubricTextResult } from '../rubric/text.js'
import type { RecordRead } from '../verdict/calibration.js'
import { failed } from '../util/result.js'
import type { LocalPlace } from './place.js'
import {
  baseGradesLine,
  differenceText,
  headLine,
  headNote,
  noBaseRubricNote,
  notARepositoryNote,
  outsideRepository
} from './sentences.js'

/** A local check's rubric, how it was chosen, and the line that says so when it is not plain. */
export interface LocalChoice {
  readonly choice: RubricChoice
  /** Said on stderr before anything runs; undefined when the working tree's and the base's agree. */
  readonly line?: string
}

/** The rubric files a choice is made of, as read for it. */
export interface LocalRubricFiles {
  /** The rubric's path as the user named it, and in the repository (`/` separators). */
  readonly path: string
  readonly repoPath: string
  /** The working tree's file. */
  readonly working: RubricTextResult
  /** The base's file; undefined when it has none, or it was not read (no base, a session). */
  readonly atBase: RubricTextResult | undefined
  /**
   * The calibration record beside it, read alike: it goes with the rubric that grades; absent,
   * none is applied (as before there was one).
   */
  readonly records?: { readonly working: RecordRead; readonly atBase?: RecordRead }
}

/** A rubric named outside the repository: none is read, and it grades nothing. */
export function outsideChoice(place: LocalPlace, path: string): LocalChoice {
  return {
    choice: {
      rubric: failed({
        source: { path, kind: 'file' },
        issues: [{ file: path, rule: 'unreadable-file', message: outsideRepository(place.root) }]
      }),
      trusted: false
    }
  }
}

/**
 * The rubric a local check grades by: the base's when it has one (its review's source `base`: what
 * it extends is then read, as the CLI reads it), else the working tree's with a note, as the
 * required check would; the working tree's when the user names it (`head`), stated; a session's
 * own as it is. Pure: `files` holds what was read.
 */
export function chooseLocalRubric(place: LocalPlace, files: LocalRubricFiles): LocalChoice {
  const { path, repoPath, working, atBase, records } = files
  const workingRecord = records && { calibration: records.working }
  if (place.source === 'session') {
    return { choice: { rubric: working, trusted: true, ...workingRecord } }
  }
  if (place.outside === true) {
    const note = notARepositoryNote(place.root)
    return {
      choice: {
        rubric: unreadExtends(working),
        trusted: false,
        review: { source: 'head', note },
        ...workingRecord
      },
      ...(working.ok && { line: `rubric-council: ${note}` })
    }
  }
  const base = place.base
  const baseText = atBase?.ok === true ? atBase.value : undefined
  const diff = rubricChanges(
    baseText,
    working.ok ? working.value : undefined,
    records?.atBase && { base: records.atBase, head: records.working }
  )
  // The working tree's record differing from the base's is a difference too.
  const differs = (atBase !== undefined && !sameText(atBase, working)) || diff !== undefined
  const where = base && `${base.ref} at ${base.commit.slice(0, 12)}`
  if (place.source === 'head') {
    const note = headNote(path, where)
    return {
      choice: {
        rubric: unreadExtends(working),
        trusted: false,
        review: { source: 'head', note, ...(diff && { diff }) },
        ...workingRecord
      },
      line: headLine(note, differs ? differenceText(diff, working) : undefined)
    }
  }
  if (atBase === undefined || where === undefined) {
    const note = noBaseRubricNote(repoPath, where)
    return {
      choice: {
        rubric: unreadExtends(working),
        trusted: false,
        review: { source: 'head', note },
        ...workingRecord
      },
      ...(working.ok && { line: `rubric-council: ${note}` })
    }
  }
  return {
    choice: {
      rubric: atBase,
      trusted: true,
      review: { source: 'base', ...(diff && { diff }) },
      ...(records?.atBase && { calibration: records.atBase })
    },
    ...(differs && { line: baseGradesLine(path, differenceText(diff, working), where) })
  }
}

/** Whether the base's and the working tree's files are read alike and have one text. */
function sameText(base: RubricTextResult, working: RubricTextResult): boolean {
  return base.ok && working.ok && base.value.text === working.value.text
}
