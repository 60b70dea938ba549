// Writes src/evidence/o200k_base.bin from gpt-tokenizer's copy of o200k_base.tiktoken. A test
// fails when the file is stale.
import { writeFileSync } from 'node:fs'
import { compactVocabulary, tiktokenSource, VOCABULARY_PATH } from './vocabulary.js'

writeFileSync(VOCABULARY_PATH, compactVocabulary(tiktokenSource()))
