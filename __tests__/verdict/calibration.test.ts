import { describe, expect, it } from 'vitest'
import {
  parseCalibrationRecord,
  RECORD_SCHEMA,
  type CalibrationRecord,
  type RecordEntry
} from '../../src/calibrate/record.js'
import { councilSetup } from '../../src/council/council.js'
import { criterionHash, PROMPT_VERSION } from '../../src/council/prompt.js'
import type { CouncilOutcome, CouncilSetup, JudgeRun } from '../../src/council/types.js'
import { calibrationChanges, recordRead } from '../../src/engine/calibration-record.js'
import type { Rubric } from '../../src/rubric/types.js'
import { calibrationLine, standingSentence } from '../../src/sentences/calibration.js'
import {
  calibrationStanding,
  type RecordRead,
  type Standing
} from '../../src/verdict/calibration.js'
import { decide } from '../../src/verdict/decide.js'
import { lines, parse } from '../helpers/rubric.js'

// `tested` measured well enough to block, `docs` measured as a coin: the two judges.
const TEXT = [
  '## Criteria',
  '- tested: Every changed behaviour has a test',
  '- docs: Public functions are documented',
  '## Nice to Have',
  '- tidy: The code is tidy'
]
const REQUIRED = parse(lines('---', 'calibration: required', '---', ...TEXT))
const PLAIN = parse(lines(...TEXT))

const COUNCIL: CouncilSetup = {
  members: ['openai:gpt-5', 'anthropic:claude-opus-4-1'],
  samples: 1,
  reasoning: [null, null],
  temperature: [null, null],
  reserve: [],
  maxExtraVotes: 0
}
const MEASURING = { council: COUNCIL, promptVersion: PROMPT_VERSION, evidenceOrder: 'diff' }

function measure(count: number, of: number): RecordEntry['precision'] {
  return { count, of, value: of === 0 ? null : count / of, low: 0, high: 1 }
}

function entry(rubric: Rubric, id: string, over: Partial<RecordEntry> = {}): RecordEntry {
  const criterion = rubric.criteria.find(c => c.id === id)
  if (criterion === undefined) throw new Error(`no criterion ${id}`)
  return {
    id,
    required: true,
    text_hash: criterionHash(criterion),
    council: {
      members: [...COUNCIL.members],
      samples: 1,
      reasoning: [null, null],
      temperature: [null, null],
      reserve: [],
      max_extra_votes: 0
    },
    prompt_version: PROMPT_VERSION,
    evidence_order: 'diff',
    product_version: '0.1.0',
    repeat: 2,
    cases: { pass: 10, fail: 10 },
    precision: measure(19, 20),
    recall: measure(19, 20),
    flip: measure(1, 20),
    thresholds: { min_precision: 0.9, max_flip: 0.1, min_labelled: 5 },
    recommendation: 'block',
    reason: 'Precision 95%, flip 5%, on 10 cases labelled PASS and 10 labelled FAIL',
    recorded: '2026-12-01T10:00:00.000Z',
    ...over
  }
}

/** `docs`: precision 0.62 on 18 cases, so the record advises. */
const COIN: Partial<RecordEntry> = {
  cases: { pass: 9, fail: 9 },
  precision: measure(8, 13),
  flip: measure(5, 18),
  recommendation: 'advise',
  reason: 'Precision 62% is below 90%: a FAIL is wrong too often to block'
}

function read(entries: readonly RecordEntry[]): RecordRead {
  const record: CalibrationRecord = {
    schema: RECORD_SCHEMA,
    rubric: '.github/rubric.md',
    set: '.github/rubric-calibration.yml',
    interval: 'wilson-95',
    criteria: [...entries]
  }
  return { kind: 'read', path: '.github/rubric-calibration.json', record }
}

const RECORD = read([entry(REQUIRED, 'tested'), entry(REQUIRED, 'docs', COIN)])
const ABSENT: RecordRead = { kind: 'absent', path: '.github/rubric-calibration.json' }

function standing(rubric: Rubric, record: RecordRead, id: string, measuring = MEASURING): Standing {
  const found = calibrationStanding(rubric, record, measuring)?.get(id)
  if (found === undefined) throw new Error(`no standing for ${id}`)
  return found
}

/** Two judges, each failing the criteria named. */
function failing(...ids: string[]): CouncilOutcome {
  const run = (judge: string): JudgeRun => ({
    judge,
    sample: 1,
    latencyMs: 1,
    status: 'ok',
    answer: {
      findings: [],
      criteria: REQUIRED.criteria.map(c => ({
        id: c.id,
        verdict: ids.includes(c.id) ? 'FAIL' : 'PASS',
        reasoning: `${c.id} judged`
      })),
      dimensions: [],
      verdict: ids.length > 0 ? 'RETRY' : 'ACCEPT',
      feedback: ''
    }
  })
  return { runs: COUNCIL.members.map(run), quorum: 2 }
}

/** One judge fails `id`, the other passes it: a SPLIT. */
function split(id: string): CouncilOutcome {
  return { runs: [...failing(id).runs.slice(0, 1), ...failing().runs.slice(1)], quorum: 2 }
}

function decided(rubric: Rubric, record: RecordRead, council: CouncilOutcome) {
  const calibration = calibrationStanding(rubric, record, MEASURING)
  return decide({ rubric, gates: [], council, ...(calibration && { calibration }) })
}

describe('which must-haves block under calibration: required (pure)', () => {
  it('blocks only where a current record recommends block', () => {
    expect(standing(REQUIRED, RECORD, 'tested')).toMatchObject({ blocks: true })
    expect(standingSentence(standing(REQUIRED, RECORD, 'docs'))).toBe(
      'advisory: precision 0.62 < 0.90 on 18 cases'
    )
    // A nice-to-have never blocks: it has no standing.
    expect(calibrationStanding(REQUIRED, RECORD, MEASURING)?.has('tidy')).toBe(false)
  })

  it('without the setting, nothing is computed: every must-have blocks as before', () => {
    expect(calibrationStanding(PLAIN, RECORD, MEASURING)).toBeUndefined()
    expect(calibrationStanding(PLAIN, ABSENT, MEASURING)).toBeUndefined()
  })

  it('no record, or no entry for the criterion: not calibrated', () => {
    expect(standingSentence(standing(REQUIRED, ABSENT, 'tested'))).toBe('advisory: not calibrated')
    const onlyTested = read([entry(REQUIRED, 'tested')])
    expect(standingSentence(standing(REQUIRED, onlyTested, 'docs'))).toBe(
      'advisory: not calibrated'
    )
  })

  it('a record that does not parse: every must-have not calibrated, with the problem', () => {
    const broken = recordRead('.github/rubric-calibration.json', '{"schema": 1}')
    expect(broken.kind).toBe('broken')
    const said = standingSentence(standing(REQUIRED, broken, 'tested'))
    expect(said).toMatch(
      /^advisory: not calibrated, the calibration record \.github\/rubric-calibration\.json is not valid: \.github\/rubric-calibration\.json: \/schema: /
    )
  })

  it('stale when the criterion text, the council or the prompt changed since it was measured', () => {
    const reworded = parse(
      lines(
        '---',
        'calibration: required',
        '---',
        '## Criteria',
        '- tested: Every behaviour has a test',
        '- docs: Public functions are documented'
      )
    )
    expect(standingSentence(standing(reworded, RECORD, 'tested'))).toBe(
      "advisory: calibration stale, the criterion's text changed"
    )
    const other = { ...MEASURING, council: { ...COUNCIL, samples: 3 } }
    expect(standingSentence(standing(REQUIRED, RECORD, 'tested', other))).toBe(
      'advisory: calibration stale, the council changed'
    )
    const effort = { ...MEASURING, council: { ...COUNCIL, reasoning: ['high' as const, null] } }
    expect(standingSentence(standing(REQUIRED, RECORD, 'tested', effort))).toBe(
      'advisory: calibration stale, the council changed'
    )
    const prompt = { ...MEASURING, promptVersion: PROMPT_VERSION + 1 }
    expect(standingSentence(standing(REQUIRED, RECORD, 'tested', prompt))).toBe(
      'advisory: calibration stale, the prompt changed'
    )
  })

  it('stale when the files are shown in another order than the record was measured with', () => {
    // Measured in git's order; the workflow now sets evidence-order: least-recently-changed.
    const reordered = { ...MEASURING, evidenceOrder: 'least-recently-changed' }
    expect(standing(REQUIRED, RECORD, 'tested', reordered)).toMatchObject({
      blocks: false,
      cause: { code: 'stale', changed: 'evidence' }
    })
    expect(standingSentence(standing(REQUIRED, RECORD, 'tested', reordered))).toBe(
      'advisory: calibration stale, the order of the files shown changed (evidence-order)'
    )
    // Measured under that order, it blocks under it.
    const measured = read([entry(REQUIRED, 'tested', { evidence_order: 'least-recently-changed' })])
    expect(standing(REQUIRED, measured, 'tested', reordered)).toMatchObject({ blocks: true })
    // A record written before the order was recorded was measured in git's order.
    const older: Partial<RecordEntry> = entry(REQUIRED, 'tested')
    delete older.evidence_order
    const head = { schema: RECORD_SCHEMA, rubric: 'r', set: 's', interval: 'wilson-95' }
    const parsed = parseCalibrationRecord(
      JSON.stringify({ ...head, criteria: [older] }),
      '.github/rubric-calibration.json'
    )
    expect(parsed.ok && parsed.value.criteria[0]?.evidence_order).toBe('diff')
  })

  it('stale when a member is sent another temperature than the record was measured at', () => {
    const council = (member: string) =>
      parse(
        lines('---', 'calibration: required', `council: { models: [${member}] }`, '---', ...TEXT)
      )
    const asked = (rubric: Rubric) => ({
      council: councilSetup({ env: {}, models: [] }, rubric),
      promptVersion: PROMPT_VERSION,
      evidenceOrder: 'diff'
    })
    const before = council('ollama:qwen3:8b')
    // Measured at ollama's default, 0: what calibrate --record writes for this council.
    expect(asked(before).council.temperature).toEqual([0])
    const recorded = {
      members: ['ollama:qwen3:8b'],
      samples: 1,
      reasoning: [null],
      temperature: [0],
      reserve: [],
      max_extra_votes: 2
    }
    const record = read([entry(before, 'tested', { council: recorded })])
    expect(standing(before, record, 'tested', asked(before))).toMatchObject({ blocks: true })
    // The same temperature written out is the same council: what is sent is compared.
    const same = council('{ model: "ollama:qwen3:8b", temperature: 0 }')
    expect(standing(same, record, 'tested', asked(same))).toMatchObject({ blocks: true })
    const warmer = council('{ model: "ollama:qwen3:8b", temperature: 0.7 }')
    expect(standing(warmer, record, 'tested', asked(warmer))).toMatchObject({
      blocks: false,
      cause: { code: 'stale', changed: 'council' }
    })
    expect(standingSentence(standing(warmer, record, 'tested', asked(warmer)))).toBe(
      'advisory: calibration stale, the council changed'
    )
  })

  it('says the first condition of block the record misses, with its figures', () => {
    const few = read([
      entry(REQUIRED, 'tested', { cases: { pass: 3, fail: 2 }, recommendation: 'advise' })
    ])
    expect(standingSentence(standing(REQUIRED, few, 'tested'))).toBe(
      'advisory: 3 cases labelled PASS and 2 labelled FAIL, fewer than 5 of each'
    )
    const flips = read([
      entry(REQUIRED, 'tested', { flip: measure(4, 20), recommendation: 'advise' })
    ])
    expect(standingSentence(standing(REQUIRED, flips, 'tested'))).toBe(
      'advisory: flip 0.20 > 0.10 on 20 cases'
    )
    // The figures beside it say what the shortfall does not: no figure twice.
    expect(calibrationLine(standing(REQUIRED, flips, 'tested'))).toBe(
      'advisory: flip 0.20 > 0.10 on 20 cases (precision 0.95, 10 PASS and 10 FAIL, recorded 2026-12-01)'
    )
    expect(calibrationLine(standing(REQUIRED, RECORD, 'tested'))).toBe(
      'blocks: calibrated (precision 0.95, flip 0.05, 20 cases (10 PASS, 10 FAIL), recorded 2026-12-01)'
    )
  })
})

describe('advisory must-haves in the decision', () => {
  it('a FAIL only of the advisory must-have is not FAIL, and is left out of the score', () => {
    const verdict = decided(REQUIRED, RECORD, failing('docs'))
    expect(verdict.verdict).toBe('PASS')
    const docs = verdict.criteria.find(c => c.id === 'docs')
    expect(docs?.status).toBe('FAIL')
    expect(docs?.calibration).toMatchObject({ blocks: false, cause: { code: 'advise' } })
    // tested PASSED (1), tidy weighs 0; docs is out, as a waived must-have is.
    expect(verdict.criteriaScore).toBe(1)
  })

  it('a FAIL of the calibrated must-have blocks as today', () => {
    const verdict = decided(REQUIRED, RECORD, failing('tested', 'docs'))
    expect([verdict.verdict, verdict.reasons[0]]).toEqual([
      'FAIL',
      { code: 'criterion_failed', criteria: ['tested'] }
    ])
  })

  it('an advisory SPLIT does not make the verdict UNCLEAR; a blocking one does', () => {
    expect(decided(REQUIRED, RECORD, split('docs')).verdict).toBe('PASS')
    const tested = decided(REQUIRED, RECORD, split('tested'))
    expect(tested.reasons.map(r => r.code)).toEqual(['judge_disagreement'])
  })

  it('with no record, neither must-have blocks; both are shown not calibrated', () => {
    const verdict = decided(REQUIRED, ABSENT, failing('tested', 'docs'))
    expect(verdict.verdict).not.toBe('FAIL')
    expect(verdict.reasons.map(r => r.code)).not.toContain('criterion_failed')
    for (const c of verdict.criteria.filter(c => c.required)) {
      expect(c.status).toBe('FAIL')
      expect(c.calibration && standingSentence(c.calibration)).toBe('advisory: not calibrated')
    }
  })

  it('without the setting, the same answers FAIL on both must-haves, as before', () => {
    const plain = decide({ rubric: PLAIN, gates: [], council: failing('tested', 'docs') })
    expect(plain.reasons[0]).toEqual({ code: 'criterion_failed', criteria: ['tested', 'docs'] })
    expect(plain.criteria.every(c => c.calibration === undefined)).toBe(true)
  })

  it('advisory removes only blocking: a failed gate still fails', () => {
    const calibration = calibrationStanding(REQUIRED, ABSENT, MEASURING)
    const verdict = decide({
      rubric: REQUIRED,
      gates: [
        {
          command: 'make test',
          status: 'fail',
          exitCode: 1,
          durationMs: 1,
          output: { head: '', tail: '', elidedBytes: 0, totalBytes: 0 }
        }
      ],
      council: failing('tested'),
      ...(calibration && { calibration })
    })
    expect(verdict.verdict).toBe('FAIL')
  })
})

describe('a pull request that edits the record or the setting: the change is shown', () => {
  it('a must-have moved from blocking to advisory is a weakening', () => {
    const downgraded = read([entry(REQUIRED, 'tested', { ...COIN }), entry(REQUIRED, 'docs', COIN)])
    const changes = calibrationChanges(
      { rubric: REQUIRED, record: RECORD },
      { rubric: REQUIRED, record: downgraded }
    )
    expect(changes).toEqual([
      { text: 'calibration record .github/rubric-calibration.json changed', weakens: false },
      {
        text: 'must-have "tested" moved from blocking to advisory: the record recommends advise',
        weakens: true
      }
    ])
  })

  it('the record deleted, or calibration: required added, weakens', () => {
    expect(
      calibrationChanges({ rubric: REQUIRED, record: RECORD }, { rubric: REQUIRED, record: ABSENT })
        .filter(c => c.weakens)
        .map(c => c.text)
    ).toEqual(['must-have "tested" moved from blocking to advisory: not calibrated'])
    expect(
      calibrationChanges({ rubric: PLAIN, record: RECORD }, { rubric: REQUIRED, record: RECORD })
    ).toEqual([
      {
        text: 'must-have "docs" moved from blocking to advisory: the record recommends advise',
        weakens: true
      }
    ])
  })

  it('a record that earns blocking is shown, and weakens nothing', () => {
    expect(
      calibrationChanges({ rubric: REQUIRED, record: ABSENT }, { rubric: REQUIRED, record: RECORD })
    ).toEqual([
      { text: 'calibration record .github/rubric-calibration.json changed', weakens: false },
      { text: 'must-have "tested" moved from advisory to blocking', weakens: false }
    ])
  })
})
