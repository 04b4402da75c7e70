// AI provider settings as the store keeps them (daemon/store/ai-providers-repo.ts implements it).
import type { AiProviderKind } from '../../../shared/types.js';

export interface AiProviderRecord {
  id: string;
  kind: AiProviderKind;
  name: string;
  baseUrl: string;
  /** Plain text in memory; the store encrypts it at rest. */
  apiKey: string;
  defaultModel: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AiProviderRepo {
  list(): Promise<AiProviderRecord[]>;
  get(id: string): Promise<AiProviderRecord | null>;
  upsert(record: AiProviderRecord): Promise<void>;
  delete(id: string): Promise<boolean>;
}
