// The built-in provider `local`: explains a failure from rules over its log, with no network and
// no model (the model argument is ignored), so explanations work on an offline server.
import type { ExplainProvider } from '../../core/ports/explain-provider.js';
import { RULES, type Evidence } from './local-rules.js';

export const localProvider: ExplainProvider = {
  async explain(prompt) {
    const evidence: Evidence = { prompt, build: prompt.buildLog, runtime: prompt.runtimeLog, all: [...prompt.buildLog, ...prompt.runtimeLog] };
    for (const rule of RULES) {
      const explanation = rule(evidence);
      if (explanation) return explanation;
    }
    throw new Error('unreachable: the last rule always answers');
  },
};
