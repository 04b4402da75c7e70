// Failure explanations (POST /api/deployments/:deploymentId/explain-failure) and the AI providers
// that give them (GET/PUT/DELETE /api/system/ai-providers). An API key is never returned.

import type { Timestamp } from './common.js';

export interface Explanation {
  summary: string;
  likelyCause: string;
  suggestedFix: string;
  commands: string[];
}

export type AiProviderKind = 'openai' | 'anthropic' | 'gemini';

export interface AiProvider {
  id: string;
  /** `local` only for the built-in, offline rules provider. */
  kind: AiProviderKind | 'local';
  name: string;
  /** null for the built-in provider. */
  baseUrl: string | null;
  defaultModel: string | null;
  hasApiKey: boolean;
  createdAt: Timestamp | null;
  updatedAt: Timestamp | null;
}

export interface AiProviderInput {
  kind: AiProviderKind;
  name?: string;
  baseUrl?: string;
  /** Required when creating (or changing kind); kept when omitted on an update. */
  apiKey?: string;
  defaultModel?: string | null;
}
