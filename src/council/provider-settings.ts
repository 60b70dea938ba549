import type { Provider } from '../rubric/model-id.js'

/**
 * Where each provider finds its key and endpoint (docs/council.md). The `*_BASE_URL` variables
 * redirect a provider to a proxy or a local stand-in. OpenRouter and other OpenAI-compatible
 * endpoints speak the OpenAI Chat Completions protocol; Ollama is spoken to on its own API, the
 * only one that can set the context window.
 */
export const PROVIDER_SETTINGS: Readonly<
  Record<
    Provider,
    {
      readonly key?: string
      readonly keyRequired: boolean
      readonly baseUrl: string
      readonly defaultBaseUrl?: string
    }
  >
> = {
  openai: { key: 'OPENAI_API_KEY', keyRequired: true, baseUrl: 'OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', keyRequired: true, baseUrl: 'ANTHROPIC_BASE_URL' },
  google: {
    key: 'GOOGLE_GENERATIVE_AI_API_KEY',
    keyRequired: true,
    baseUrl: 'GOOGLE_GENERATIVE_AI_BASE_URL'
  },
  openrouter: {
    key: 'OPENROUTER_API_KEY',
    keyRequired: true,
    baseUrl: 'OPENROUTER_BASE_URL',
    defaultBaseUrl: 'https://openrouter.ai/api/v1'
  },
  ollama: {
    key: 'OLLAMA_API_KEY',
    keyRequired: false,
    baseUrl: 'OLLAMA_BASE_URL',
    defaultBaseUrl: 'http://localhost:11434'
  },
  'openai-compatible': {
    key: 'OPENAI_COMPATIBLE_API_KEY',
    keyRequired: false,
    baseUrl: 'OPENAI_COMPATIBLE_BASE_URL'
  }
}
