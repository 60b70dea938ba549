/**
 * The words said of a finding's place in the evidence (docs/verdict.md#grounded-findings): a
 * critical or major finding that names no shown file at a shown line, nor a gate whose output it
 * quotes, is listed with them and blocks nothing.
 */
export const NOT_IN_EVIDENCE = 'location not in the evidence'

/** What the JSON report's schema says of `in_evidence`. */
export const IN_EVIDENCE_DESCRIPTION =
  'false for a critical or major finding that names no file the judges were shown at a line a shown hunk holds, nor a gate whose output it quotes: it blocks nothing'
