// What an image reference a tenant gives may name: a repository (with an optional registry, tag
// and digest), never an image ID. The Docker Engine resolves a bare string it cannot find as a name
// as an ID or any unique prefix of one (`ea9`, `sha256:ea93...`), and every image on the server has
// an ID, other tenants' builds and the untagged layers the classic builder keeps for them included.
// So a reference whose repository could be read as hex, or that is a bare digest, is refused, and
// so is Berth's own local namespace (`berth/<service>:<deployment>`, the tags of the images Berth
// builds for services). Used for image services' `dockerImage` and for every FROM and COPY --from a
// build resolves (builder/dockerfile-refs.ts). Pure: no Docker here.
import { InvalidInput } from './errors.js';

// Docker reference grammar, simplified: [registry[:port]/]path[:tag][@digest]
const IMAGE_REF = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[a-f0-9]{64})?$/;
/** Digest algorithms: `sha256:<hex>` is an image ID, not a repository named sha256. */
const DIGEST_ALGORITHMS = new Set(['sha256', 'sha384', 'sha512']);
/** Registries Docker treats as "no registry" (Docker Hub): `docker.io/berth/x` is `berth/x` locally. */
const HUB = new Set(['docker.io', 'index.docker.io']);
/** Where Berth tags the images it builds for services. */
const BERTH_IMAGE_NAMESPACE = 'berth';

export interface ImageRefParts {
  /** The registry host (and port) when given and not Docker Hub; null otherwise. */
  registry: string | null;
  /** The repository path, e.g. `library/node` stays `node` as written, `acme/app`. */
  path: string;
  tag: string | null;
  digest: string | null;
}

/** Splits a reference that matches the grammar; null when it does not. */
export function parseImageRef(ref: string): ImageRefParts | null {
  if (!IMAGE_REF.test(ref)) return null;
  let rest = ref;
  let digest: string | null = null;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | null = null;
  const lastSlash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > lastSlash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const parts = rest.split('/');
  let registry: string | null = null;
  const first = parts[0]!;
  if (parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost')) {
    registry = first;
    parts.shift();
  }
  if (registry !== null && HUB.has(registry)) registry = null;
  return { registry, path: parts.join('/'), tag, digest };
}

/**
 * Why `ref` may not be used as an image reference by a tenant, or null when it may. The reason is
 * a sentence fragment naming the rule, e.g. "names an image by its ID or an ID prefix".
 */
export function imageRefProblem(ref: string): string | null {
  if (ref === '') return 'is empty';
  const bareDigest = /^([a-z0-9]+):/.exec(ref);
  if (bareDigest && DIGEST_ALGORITHMS.has(bareDigest[1]!) && !ref.includes('/')) {
    return 'is an image ID (a digest without a repository); name a repository, e.g. name@sha256:<digest>';
  }
  const parts = parseImageRef(ref);
  if (!parts) return 'is not a valid image reference ([registry/]repository[:tag][@sha256:digest], lower case)';
  if (parts.registry === null && !parts.path.includes('/') && /^[a-f0-9]+$/.test(parts.path)) {
    // the Engine reads a one-part name made of hex digits as an image ID (prefix) when no such name exists
    return `names an image by its ID or an ID prefix; use a repository name (for a Docker Hub image called ${parts.path}, docker.io/library/${parts.path})`;
  }
  if (parts.registry === null && (parts.path === BERTH_IMAGE_NAMESPACE || parts.path.startsWith(`${BERTH_IMAGE_NAMESPACE}/`))) {
    return `is in ${BERTH_IMAGE_NAMESPACE}/, where Berth keeps the images it builds for services; a project may not reference them`;
  }
  return null;
}

/** `dockerImage` checked: 400 with the reason when a tenant may not name it. */
export function checkImageRef(value: string, field = 'dockerImage'): string {
  const problem = imageRefProblem(value);
  if (problem) throw new InvalidInput(`${field} "${value.slice(0, 80)}" ${problem}`, 'invalid_image_reference');
  return value;
}
