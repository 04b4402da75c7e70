// A typed client for the Berth API over fetch. Tests, the desktop app and scripts all use it.
// Every call names a route of the shared table (shared/api-routes.ts), which gives its method and
// path; the calls live by area under shared/client/.
import { ChecksClient } from './client/checks.js';

export { ApiError, type ClientOptions, type RawResponse, type RequestOptions } from './client/base.js';
export type { CreateServiceInput, PatchServiceInput } from './client/projects.js';

export class BerthClient extends ChecksClient {
  withToken(token: string | null): BerthClient {
    return new BerthClient(this.baseUrl, token, this.options);
  }
}
