/**
 * A tiny llama model written as a GGUF file at test time: seeded random weights, a vocabulary
 * learned from a text the caller gives, a chat template, an 8,192-token window. No model is
 * downloaded and none is committed; the engine (llama.cpp through node-llama-cpp) runs it as it
 * would any llama model, so its tokenizer counts, its grammar and its window are the real ones.
 *
 * Written from the GGUF format spec (ggml-org/ggml docs/gguf.md): the header (magic `GGUF`,
 * version 3, tensor and key/value counts as u64), key/value pairs (a string key, a u32 value type,
 * the value; strings are a u64 length and UTF-8 bytes; arrays an element type, a u64 count and the
 * elements), tensor infos (name, dimension count, dimensions innermost first, ggml type, offset
 * into the data section), then the data section, every tensor aligned to `general.alignment`
 * (32 when the file does not say). The keys are the spec's standardized ones for the `llama`
 * architecture and the `llama` (SentencePiece) tokenizer; tensor names and shapes are the ones
 * llama.cpp's loader asks a llama model for.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The value types of a GGUF key/value pair (gguf.md, `gguf_metadata_value_type`). */
const TYPE = { uint32: 4, int32: 5, float32: 6, bool: 7, string: 8, array: 9 } as const
/** ggml's tensor type for 32-bit floats. */
const GGML_F32 = 0
const ALIGNMENT = 32

/** Token types of the vocabulary (gguf.md, `tokenizer.ggml.token_type`). */
const NORMAL = 1
const UNKNOWN = 2
const CONTROL = 3
const BYTE = 6

/** SentencePiece writes a space as U+2581 and llama.cpp's `llama` tokenizer does the same. */
const SPACE = '\u2581'

const MODEL_WINDOW = 8192

/** The template node-llama-cpp and llama.cpp render a chat with: ChatML's markers, as control tokens. */
const CHAT_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"

export interface TinyModel {
  readonly path: string
  readonly window: number
  readonly vocabulary: number
  readonly bytes: number
}

type Value =
  | { type: 'uint32'; value: number }
  | { type: 'float32'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'string'; value: string }
  | { type: 'strings'; value: readonly string[] }
  | { type: 'floats'; value: readonly number[] }
  | { type: 'ints'; value: readonly number[] }

class Writer {
  private readonly parts: Buffer[] = []
  length = 0

  push(buffer: Buffer): void {
    this.parts.push(buffer)
    this.length += buffer.length
  }
  u32(n: number): void {
    const b = Buffer.alloc(4)
    b.writeUInt32LE(n)
    this.push(b)
  }
  u64(n: number): void {
    const b = Buffer.alloc(8)
    b.writeBigUInt64LE(BigInt(n))
    this.push(b)
  }
  string(s: string): void {
    const bytes = Buffer.from(s, 'utf8')
    this.u64(bytes.length)
    this.push(bytes)
  }
  pad(): void {
    const rest = this.length % ALIGNMENT
    if (rest !== 0) this.push(Buffer.alloc(ALIGNMENT - rest))
  }
  bytes(): Buffer {
    return Buffer.concat(this.parts)
  }
}

function writeValue(w: Writer, v: Value): void {
  const array = (type: number, count: number): void => {
    w.u32(TYPE.array)
    w.u32(type)
    w.u64(count)
  }
  switch (v.type) {
    case 'uint32':
      w.u32(TYPE.uint32)
      w.u32(v.value)
      return
    case 'float32': {
      w.u32(TYPE.float32)
      const b = Buffer.alloc(4)
      b.writeFloatLE(v.value)
      w.push(b)
      return
    }
    case 'bool':
      w.u32(TYPE.bool)
      w.push(Buffer.from([v.value ? 1 : 0]))
      return
    case 'string':
      w.u32(TYPE.string)
      w.string(v.value)
      return
    case 'strings':
      array(TYPE.string, v.value.length)
      for (const s of v.value) w.string(s)
      return
    case 'floats':
      array(TYPE.float32, v.value.length)
      w.push(Buffer.from(new Float32Array(v.value).buffer))
      return
    case 'ints':
      array(TYPE.int32, v.value.length)
      w.push(Buffer.from(new Int32Array(v.value).buffer))
  }
}

/** mulberry32: a small seeded generator, so the same seed writes the same weights. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface Vocabulary {
  readonly tokens: string[]
  readonly scores: number[]
  readonly types: number[]
}

/**
 * Bytes (so any text tokenizes), the printable ASCII characters, and the most frequent words of
 * `corpus` with every prefix of each (SentencePiece merges pairs whose join is in the vocabulary,
 * so a word is reached through its prefixes); a longer piece scores higher, so merges prefer it.
 * Learned from the README and six of docs/, 16,000 tokens (about 14,200 were there to learn)
 * counted TypeScript at 1.22 times our estimate and English prose at 0.9 to 1.2 (measured on
 * src/council/call.ts, docs/council.md, CHANGELOG.md), within the 1.25 a real model's tokenizer may
 * count more (TOKENIZER_MARGIN); 3,000 counted TypeScript at 1.71, more than any real model.
 */
function learnVocabulary(corpus: string, size: number): Vocabulary {
  const tokens = ['<unk>', '<s>', '</s>', '<|im_start|>', '<|im_end|>']
  const types = [UNKNOWN, CONTROL, CONTROL, CONTROL, CONTROL]
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`)
    types.push(BYTE)
  }
  const seen = new Set(tokens)
  const add = (piece: string): void => {
    if (seen.has(piece) || tokens.length >= size) return
    seen.add(piece)
    tokens.push(piece)
    types.push(NORMAL)
  }
  add(SPACE)
  for (let c = 0x21; c < 0x7f; c++) add(String.fromCharCode(c))
  const counts = new Map<string, number>()
  for (const match of corpus.matchAll(/( ?)([A-Za-z]+|[0-9]+|[^\sA-Za-z0-9]{2,3})/g)) {
    const word = (match[1] === ' ' ? SPACE : '') + (match[2] ?? '')
    counts.set(word, (counts.get(word) ?? 0) + 1)
  }
  const words = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  for (const [word] of words) {
    const chars = Array.from(word)
    for (let end = 2; end <= chars.length; end++) add(chars.slice(0, end).join(''))
    if (tokens.length >= size) break
  }
  const scores = tokens.map((t, i) => (types[i] === NORMAL ? Array.from(t).length : 0))
  return { tokens, scores, types }
}

interface Tensor {
  readonly name: string
  readonly dims: readonly number[]
}

function llamaTensors(embd: number, ff: number, layers: number, vocab: number): Tensor[] {
  const tensors: Tensor[] = [
    { name: 'token_embd.weight', dims: [embd, vocab] },
    { name: 'output_norm.weight', dims: [embd] },
    { name: 'output.weight', dims: [embd, vocab] }
  ]
  for (let i = 0; i < layers; i++) {
    const blk = `blk.${i}`
    tensors.push(
      { name: `${blk}.attn_norm.weight`, dims: [embd] },
      { name: `${blk}.attn_q.weight`, dims: [embd, embd] },
      { name: `${blk}.attn_k.weight`, dims: [embd, embd] },
      { name: `${blk}.attn_v.weight`, dims: [embd, embd] },
      { name: `${blk}.attn_output.weight`, dims: [embd, embd] },
      { name: `${blk}.ffn_norm.weight`, dims: [embd] },
      { name: `${blk}.ffn_gate.weight`, dims: [embd, ff] },
      { name: `${blk}.ffn_up.weight`, dims: [embd, ff] },
      { name: `${blk}.ffn_down.weight`, dims: [ff, embd] }
    )
  }
  return tensors
}

export interface TinyModelOptions {
  /** Text the vocabulary is learned from. */
  readonly corpus: string
  readonly seed?: number
  readonly vocabulary?: number
  /**
   * Tokens the model prefers whatever it has read, most preferred first: where one may come next
   * (under a grammar, where the grammar allows it), the model writes it. Everything else it
   * writes is random.
   */
  readonly prefers?: readonly string[]
}

/**
 * How a preference is written into the weights: every token's embedding holds `LEAD_INPUT` in
 * dimension 0 and no layer writes to it, so the final norm passes a positive value there at every
 * position; the output row of the k-th preferred token weighs it by `LEAD_LOGIT / (k + 1)` and the
 * others by 0. The random rest of a logit varies by about ±4 over the vocabulary: far below.
 */
const LEAD_INPUT = 1
const LEAD_LOGIT = 64

/** The tensors' values with `prefers` written in (see LEAD_LOGIT), in place. */
function writePreferences(
  tensor: Tensor,
  values: Float32Array,
  preferred: readonly number[]
): void {
  const [inner = 0, outer = 0] = tensor.dims
  if (tensor.name === 'token_embd.weight') {
    for (let t = 0; t < outer; t++) values[t * inner] = LEAD_INPUT
  } else if (/^blk\.\d+\.(attn_output|ffn_down)\.weight$/.test(tensor.name)) {
    // Row 0 of a layer's output: what it adds to dimension 0 of the residual stream.
    values.fill(0, 0, inner)
  } else if (tensor.name === 'output.weight') {
    for (let t = 0; t < outer; t++) values[t * inner] = 0
    preferred.forEach((t, k) => {
      values[t * inner] = LEAD_LOGIT / (k + 1)
    })
  }
}

/** Writes the model into `dir` and says where, with its window and size. */
export function writeTinyModel(dir: string, options: TinyModelOptions): TinyModel {
  const embd = 64
  const heads = 4
  const ff = 128
  const layers = 2
  const vocab = learnVocabulary(options.corpus, options.vocabulary ?? 16_000)
  const n = vocab.tokens.length
  const metadata: [string, Value][] = [
    ['general.architecture', { type: 'string', value: 'llama' }],
    ['general.name', { type: 'string', value: 'rubric-council tiny test model' }],
    ['llama.context_length', { type: 'uint32', value: MODEL_WINDOW }],
    ['llama.embedding_length', { type: 'uint32', value: embd }],
    ['llama.block_count', { type: 'uint32', value: layers }],
    ['llama.feed_forward_length', { type: 'uint32', value: ff }],
    ['llama.attention.head_count', { type: 'uint32', value: heads }],
    ['llama.attention.head_count_kv', { type: 'uint32', value: heads }],
    ['llama.attention.layer_norm_rms_epsilon', { type: 'float32', value: 1e-5 }],
    ['llama.rope.dimension_count', { type: 'uint32', value: embd / heads }],
    ['llama.vocab_size', { type: 'uint32', value: n }],
    ['tokenizer.ggml.model', { type: 'string', value: 'llama' }],
    ['tokenizer.ggml.tokens', { type: 'strings', value: vocab.tokens }],
    ['tokenizer.ggml.scores', { type: 'floats', value: vocab.scores }],
    ['tokenizer.ggml.token_type', { type: 'ints', value: vocab.types }],
    ['tokenizer.ggml.unknown_token_id', { type: 'uint32', value: 0 }],
    ['tokenizer.ggml.bos_token_id', { type: 'uint32', value: 1 }],
    ['tokenizer.ggml.eos_token_id', { type: 'uint32', value: vocab.tokens.indexOf('<|im_end|>') }],
    ['tokenizer.ggml.add_bos_token', { type: 'bool', value: true }],
    ['tokenizer.chat_template', { type: 'string', value: CHAT_TEMPLATE }]
  ]
  const tensors = llamaTensors(embd, ff, layers, n)

  const w = new Writer()
  w.push(Buffer.from('GGUF', 'ascii'))
  w.u32(3)
  w.u64(tensors.length)
  w.u64(metadata.length)
  for (const [key, value] of metadata) {
    w.string(key)
    writeValue(w, value)
  }
  let offset = 0
  const sizes = tensors.map(t => t.dims.reduce((a, b) => a * b, 1) * 4)
  tensors.forEach((t, i) => {
    w.string(t.name)
    w.u32(t.dims.length)
    for (const d of t.dims) w.u64(d)
    w.u32(GGML_F32)
    w.u64(offset)
    offset += Math.ceil((sizes[i] ?? 0) / ALIGNMENT) * ALIGNMENT
  })
  w.pad()
  const next = random(options.seed ?? 41)
  const preferred = (options.prefers ?? []).map(piece => {
    const t = vocab.tokens.indexOf(piece)
    if (t < 0) throw new Error(`the vocabulary has no token ${JSON.stringify(piece)} to prefer`)
    return t
  })
  tensors.forEach((t, i) => {
    const values = new Float32Array((sizes[i] ?? 0) / 4)
    // Norms at 1 as a trained model has them; other weights uniform, scaled by the fan-in.
    const isNorm = t.dims.length === 1
    const scale = isNorm ? 0 : 1 / Math.sqrt(t.dims[0] ?? 1)
    for (let j = 0; j < values.length; j++) values[j] = isNorm ? 1 : (next() * 2 - 1) * scale * 2
    if (preferred.length > 0) writePreferences(t, values, preferred)
    w.push(Buffer.from(values.buffer))
    w.pad()
  })
  const bytes = w.bytes()
  const path = join(dir, 'tiny-llama.gguf')
  writeFileSync(path, bytes)
  return { path, window: MODEL_WINDOW, vocabulary: n, bytes: bytes.length }
}
