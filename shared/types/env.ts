// Environment variables of a service and the suggestions the console offers for them.

import type { Timestamp } from './common.js';
import type { DatabaseEngine } from './databases.js';

export interface EnvVar {
  id: string;
  key: string;
  hasValue: boolean;
  value: string;
  resolvedValue: string;
  createdAt: Timestamp;
  updatedAt: Timestamp;
}

export interface Suggestion {
  key: string;
  label: string;
}

export interface DatabaseVariableSuggestion {
  key: string;
  value: string;
  label: string;
  dbType: DatabaseEngine;
}
