// After a successful multi-stage build, the classic builder leaves the earlier stages' last layers
// behind as dangling images (untagged, no children): a generated autobuild Dockerfile does this on
// every Go, Rust, Java or static-site deployment. Only images that are both dangling and named in
// this build's own step output are removed, so base images (tagged), the built image (tagged) and
// layers other images still need (not dangling) are never touched.
import type Docker from 'dockerode';

export async function removeDanglingBuildStages(docker: Docker, stepIds: readonly string[]): Promise<number> {
  if (stepIds.length === 0) return 0;
  const dangling = await docker.listImages({ filters: { dangling: ['true'] } });
  const ours = dangling.filter((img) => stepIds.some((id) => img.Id.replace(/^sha256:/, '').startsWith(id)));
  let removed = 0;
  for (const img of ours) {
    try {
      await docker.getImage(img.Id).remove({ noprune: false });
      removed++;
    } catch {
      // gone already, or another build started using it: leave it
    }
  }
  return removed;
}
