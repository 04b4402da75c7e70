// Start-up with many live containers: deploys LIVE image services (berth-test/httpd) through the
// API, then restarts the daemon on the same data dir ROUNDS times and times each restart (stop, then
// start until the API listens): reconciliation adopts every running deployment (inspects, health probe, log
// attach) before the API listens. Removes everything it created at the end.
// Usage: node dist/test/bench/startup-live.js [services=50] [rounds=3]
import { performance } from 'node:perf_hooks';
import { startTestDaemon } from '../helpers/daemon.js';
import { waitForDeployment } from '../helpers/wait.js';

const LIVE = Number(process.argv[2] ?? 50);
const ROUNDS = Number(process.argv[3] ?? 3);

const t = await startTestDaemon();
let projectId: string | null = null;
try {
  const { project } = await t.admin.createProject({ name: `Startup live ${process.pid}` });
  projectId = project.id;
  const t0 = performance.now();
  const deployed: Promise<unknown>[] = [];
  for (let i = 0; i < LIVE; i++) {
    const { service } = await t.admin.createService(project.id, { name: `live-${i}`, repoUrl: 'docker-image', dockerImage: 'berth-test/httpd:latest', internalPort: 8080 });
    const { deployment } = await t.admin.deploy(service.id);
    deployed.push(waitForDeployment(t.admin, service.id, deployment.id, ['running'], 300_000));
  }
  await Promise.all(deployed);
  console.log(`${LIVE} live services deployed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const s = performance.now();
    await t.restart(); // stop, then start on the same data dir: resolves once the API listens
    times.push(performance.now() - s);
  }
  const health = await t.admin.health();
  console.log(`start-up with ${LIVE} live containers (stop + start until the API listens), ${ROUNDS} restarts: ${times.map((ms) => ms.toFixed(0)).join(', ')} ms; healthy: ${health.ok}`);
} finally {
  if (projectId !== null) await t.admin.deleteProject(projectId).catch((err: unknown) => console.error('cleanup', err));
  await t.stop();
}
