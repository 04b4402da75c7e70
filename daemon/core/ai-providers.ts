// AI providers as a system setting: which HTTP APIs may explain failed deployments, with their
// credentials. Managing them needs a write key over all projects; listing needs a key over all
// projects. The API key is kept sealed at rest (by the store) and never leaves through the API.
import type { AiProvider, AiProviderKind } from '../../shared/types.js';
import type { Access } from './access.js';
import type { Clock } from './clock.js';
import { InvalidInput, NotFound } from './errors.js';
import type { AiProviderRecord, AiProviderRepo } from './ports/ai-provider-repo.js';
import { NO_EVENTS, type EventSink } from './events.js';

export type { AiProviderRepo } from './ports/ai-provider-repo.js';

/** The built-in provider: rules over the log, no network, nothing to configure. */
export const LOCAL_PROVIDER_ID = 'local';

/** An OpenAI-compatible base URL also serves OpenRouter, Ollama, LM Studio and vLLM. */
const DEFAULT_BASE_URLS: Record<AiProviderKind, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  gemini: 'https://generativelanguage.googleapis.com',
};

const DEFAULT_NAMES: Record<AiProviderKind, string> = {
  openai: 'OpenAI-compatible',
  anthropic: 'Anthropic',
  gemini: 'Google Gemini',
};

const ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,40}$/;

export interface AiProviderPut {
  kind: AiProviderKind;
  name?: string | undefined;
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  defaultModel?: string | null | undefined;
}

function aiProviderView(r: AiProviderRecord): AiProvider {
  return {
    id: r.id,
    kind: r.kind,
    name: r.name,
    baseUrl: r.baseUrl,
    defaultModel: r.defaultModel,
    hasApiKey: r.apiKey !== '',
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

const LOCAL_VIEW: AiProvider = {
  id: LOCAL_PROVIDER_ID,
  kind: 'local',
  name: 'Built-in rules (offline)',
  baseUrl: null,
  defaultModel: null,
  hasApiKey: false,
  createdAt: null,
  updatedAt: null,
};

/** http(s) only, no credentials in it (they belong in apiKey, which is sealed), no trailing slash. */
export function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new InvalidInput('baseUrl must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInput('baseUrl must be an http or https URL');
  if (url.username || url.password) throw new InvalidInput('baseUrl must not carry credentials; give them as apiKey');
  if (url.search || url.hash) throw new InvalidInput('baseUrl must not have a query or a fragment');
  return url.toString().replace(/\/+$/, '');
}

export class AiProviders {
  constructor(
    private repo: AiProviderRepo,
    private clock: Clock,
    private events: EventSink = NO_EVENTS,
  ) {}

  private changed(): void {
    this.events.publish({ type: 'settings', allProjects: true, data: { area: 'ai-providers' } });
  }

  async list(access: Access): Promise<AiProvider[]> {
    access.requireAllProjects('listing AI providers');
    return [LOCAL_VIEW, ...(await this.repo.list()).map(aiProviderView)];
  }

  async put(access: Access, id: string, input: AiProviderPut): Promise<AiProvider> {
    admin(access);
    checkId(id);
    const existing = await this.repo.get(id);
    const kindChanged = existing !== null && existing.kind !== input.kind;
    // A key is kept across updates, but never carried over to another vendor's API.
    const apiKey = input.apiKey ?? (kindChanged ? undefined : existing?.apiKey);
    if (apiKey === undefined) {
      throw new InvalidInput(existing === null ? 'apiKey is required when adding a provider' : 'apiKey is required when changing the kind of a provider');
    }
    // A kept key goes only where it went before: pointing a stored key at another server (a
    // leaked or mistyped base URL) takes the key itself, typed again.
    if (existing && !kindChanged && input.apiKey === undefined && input.baseUrl !== undefined && origin(checkBaseUrl(input.baseUrl)) !== origin(existing.baseUrl)) {
      throw new InvalidInput(
        `baseUrl moves provider "${id}" from ${origin(existing.baseUrl)} to ${origin(checkBaseUrl(input.baseUrl))}: re-enter the apiKey to send it to a new host`,
        'secret_required',
      );
    }
    const now = this.clock.now();
    const record: AiProviderRecord = {
      id,
      kind: input.kind,
      name: input.name ?? (existing && !kindChanged ? existing.name : DEFAULT_NAMES[input.kind]),
      baseUrl: input.baseUrl !== undefined ? checkBaseUrl(input.baseUrl) : existing && !kindChanged ? existing.baseUrl : DEFAULT_BASE_URLS[input.kind],
      apiKey,
      defaultModel: input.defaultModel !== undefined ? input.defaultModel : (existing?.defaultModel ?? null),
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    };
    await this.repo.upsert(record);
    this.changed();
    return aiProviderView(record);
  }

  async delete(access: Access, id: string): Promise<void> {
    admin(access);
    if (id === LOCAL_PROVIDER_ID) throw new InvalidInput('"local" is the built-in provider; it cannot be removed');
    if (!(await this.repo.delete(id))) throw new NotFound('AI provider not found');
    this.changed();
  }
}

function admin(access: Access): void {
  access.requireWrite();
  access.requireAllProjects('managing AI providers');
}

function checkId(id: string): void {
  if (id === LOCAL_PROVIDER_ID) throw new InvalidInput('"local" is the built-in provider; choose another id');
  if (!ID_PATTERN.test(id)) throw new InvalidInput('provider id must match ^[a-z0-9][a-z0-9-]{0,40}$');
}

/** Where a base URL sends requests (scheme, host and port): a stored key stays with it. */
function origin(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return baseUrl;
  }
}
