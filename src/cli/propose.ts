import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { proposeCases, proposedSetText, readHistory, withLedger } from '../calibrate/propose.js'
import { ledgerNotRead, notALogin, proposedLine } from '../calibrate/sentences.js'
import { runGit } from '../evidence/git-process.js'
import { isLogin } from '../github/comment.js'
import { CHECK_NAME_RULE, isCheckName } from '../inputs/action-inputs.js'
import { USAGE_ERROR } from './args.js'
import type { CliIo } from './io.js'
import { readLedger } from './ledger.js'

/** The options of `calibrate` that `--propose` reads. */
export interface ProposeOptions {
  /** The workflow's `check-name`, whose comment holds the ledger. */
  readonly 'check-name'?: string
  /** The account the action comments as: github-actions[bot], or a GitHub App's. */
  readonly 'comment-author'?: string
  /** Overwrite a set that exists. */
  readonly force?: boolean
}

/**
 * `calibrate --propose N`: a starting set, for a maintainer to confirm case by case, from this
 * repository's history and from what maintainers did on its last N closed pull requests (read
 * through the API when it can be; the history's cases are written either way).
 */
export async function proposeCommand(
  count: string,
  setPath: string,
  options: ProposeOptions,
  io: CliIo
): Promise<number> {
  const n = Number(count)
  if (!Number.isInteger(n) || n < 1) {
    io.stderr(
      `rubric-council: --propose "${count}" is not a whole number of at least 1 (see rubric-council calibrate --help)`
    )
    return USAGE_ERROR
  }
  const checkName = options['check-name']
  if (checkName !== undefined && (checkName.trim() === '' || !isCheckName(checkName))) {
    io.stderr(
      `rubric-council: --check-name ${JSON.stringify(checkName)} is not ${CHECK_NAME_RULE} (see rubric-council calibrate --help)`
    )
    return USAGE_ERROR
  }
  const author = options['comment-author']
  if (author !== undefined && !isLogin(author)) {
    io.stderr(`rubric-council: ${notALogin(author)} (see rubric-council calibrate --help)`)
    return USAGE_ERROR
  }
  const target = resolve(io.cwd, setPath)
  if (existsSync(target) && options.force !== true) {
    io.stderr(`rubric-council: ${setPath} exists; not overwriting it (use --force)`)
    return 1
  }
  const history = await readHistory(io.cwd, runGit)
  if (!history.ok) {
    io.stderr(`rubric-council: ${history.problem}`)
    return USAGE_ERROR
  }
  const { firstParent, all } = history.value
  const ledger = await readLedger(io, n, { checkName: checkName?.trim(), author })
  if (!ledger.ok) io.stderr(ledgerNotRead(ledger.problem))
  const merged = proposeCases(firstParent, all, n)
  const cases = ledger.ok ? withLedger(merged, ledger.value, all) : merged
  if (cases.length === 0) {
    io.stderr(
      'rubric-council: no merged pull request in this history (a merge commit, or a squash commit whose subject ends with "(#N)"), and no waiver, acceptance or reverted merge read from GitHub: write the set by hand (docs/calibration.md)'
    )
    return 1
  }
  await mkdir(dirname(target), { recursive: true })
  await writeFile(target, proposedSetText(cases))
  io.stdout(proposedLine(setPath, cases, ledger.ok ? ledger.value : undefined))
  return 0
}
