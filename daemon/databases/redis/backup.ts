// Redis: an RDB snapshot taken with `redis-cli --rdb -` (the replication protocol: the server
// forks and streams a point-in-time RDB) inside the container, authenticated through REDISCLI_AUTH
// in the exec's Env (not `-a`, which would put the password in argv).
//
//   dump: redis-cli --no-auth-warning --rdb -          (Env REDISCLI_AUTH)
//
// redis-cli 7.0 with diskless replication leaves the 40-byte EOF mark of the transfer at the end
// of stdout (it can only ftruncate() a real file): the mark is recognised after the RDB's final
// 0xFF opcode + 8-byte checksum and dropped, so the file is exactly the RDB.
//
// Restore replaces the dataset, which only a restart can do. The daemon runs redis with
// `--appendonly yes`, and redis 7 then loads only the AOF: verified on 7.0, with no AOF present it
// ignores dump.rdb and creates an empty AOF base, losing the restored data. But an RDB *is* a valid
// AOF (an AOF with an RDB preamble and no tail), and redis 7 upgrades a single-file
// `appendonly.aof` without an `appendonlydir` into its multi-part layout, using that file as the
// base. So:
//   1. the RDB (magic `REDIS` checked first) is streamed into the running container as a staging
//      file in the data directory (a failed transfer changes nothing);
//   2. the container is stopped;
//   3. a short-lived helper container from the same image, with the service container's volumes
//      (VolumesFrom: the data volume is found without knowing the service id), runs a constant
//      script: remove appendonlydir/ and dump.rdb (the pre-restore data), move the staging file to
//      appendonly.aof;
//   4. the container is started, PING is awaited (loading a big RDB takes a while), and
//      ctx.restarted() lets the daemon point the service at its new published port.
// The base written by the upgrade survives later restarts (checked by the tests). Redis 6 reads the
// same appendonly.aof directly. Once the container is stopped the sequence runs to the end even if
// the signal aborts: it always starts the container again.
import { randomBytes } from 'node:crypto';
import { Transform } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import { LABEL_INSTANCE, LABEL_MANAGED, LABEL_PROJECT } from '../../docker/labels.js';
import { BOUNDED_LOG_CONFIG } from '../../docker/log-config.js';
import type { EngineBackupTool, ToolContext } from '../backup-tool.js';
import { REDIS_DATA_PATH } from './container.js';
import { execInContainer, execText, readHead } from '../../docker/exec.js';

const MAGIC = Buffer.from('REDIS');
const EOF_MARK_LENGTH = 40;
const READY_TIMEOUT_MS = 10 * 60_000;

const DATA_PATH = REDIS_DATA_PATH;

/** Run in the helper container, in the data directory: $1 is the staging file's name. */
const SWAP_SCRIPT = ['set -e', 'cd "$1"', 'test -s "$2"', 'rm -rf appendonlydir appendonly.aof dump.rdb', 'mv "$2" appendonly.aof'].join('\n');

function authEnv(ctx: ToolContext): Record<string, string> {
  return { REDISCLI_AUTH: ctx.env.REDIS_PASSWORD ?? '' };
}

export const redisTool: EngineBackupTool = {
  format: 'rdb',
  extension: 'rdb',

  async dump(ctx, out) {
    const check = new RdbStream();
    await execInContainer(ctx.docker, ctx.containerId, {
      tool: 'redis-cli',
      cmd: ['redis-cli', '--no-auth-warning', '--rdb', '-'],
      env: authEnv(ctx),
      stdout: out,
      through: [check],
      signal: ctx.signal,
    });
    if (!check.sawMagic) throw new Error('redis-cli exited 0 but did not write an RDB file (no REDIS header)');
  },

  async restore(ctx, input) {
    const { head, rest } = await readHead(input, MAGIC.length);
    if (!head.equals(MAGIC)) {
      rest.destroy();
      throw new Error(`the backup file is ${head.length === 0 ? 'empty' : 'not an RDB file (no REDIS header)'}; nothing was restored`);
    }
    const container = ctx.docker.getContainer(ctx.containerId);
    const info = await container.inspect();
    if (!info.Mounts.some((m) => m.Destination === DATA_PATH)) throw new Error(`the redis container has no volume at ${DATA_PATH}; nothing was restored`);

    const staged = `.berth-restore-${randomBytes(6).toString('hex')}.rdb`;
    try {
      await execInContainer(ctx.docker, ctx.containerId, {
        tool: 'sh (staging the RDB)',
        cmd: ['sh', '-c', 'umask 077; cat > "$1/$2"', 'berth-stage', DATA_PATH, staged],
        stdin: rest,
        signal: ctx.signal,
      });
    } catch (err) {
      await execText(ctx.docker, ctx.containerId, { tool: 'rm', cmd: ['rm', '-f', `${DATA_PATH}/${staged}`] }).catch(() => undefined);
      throw err;
    }

    ctx.log('redis: stopping the container to replace its data');
    await container.stop({ t: 30 }).catch((err: { statusCode?: number }) => {
      if (err.statusCode !== 304) throw err; // 304: already stopped
    });
    let swapError: Error | null = null;
    try {
      await runHelper(ctx.docker, info, ['sh', '-c', SWAP_SCRIPT, 'berth-redis-restore'], [DATA_PATH, staged]);
    } catch (err) {
      swapError = err instanceof Error ? err : new Error(String(err));
    }
    await container.start();
    await waitForPong(ctx);
    await ctx.restarted();
    if (swapError !== null) {
      await execText(ctx.docker, ctx.containerId, { tool: 'rm', cmd: ['rm', '-f', `${DATA_PATH}/${staged}`] }).catch(() => undefined);
      throw swapError;
    }
    ctx.log('redis: restarted with the restored data');
  },
};

/** Runs a one-shot container from the service container's image with its volumes, no network. */
async function runHelper(docker: Docker, target: Docker.ContainerInspectInfo, entrypoint: string[], cmd: string[]): Promise<void> {
  const labels = target.Config.Labels ?? {};
  const helper = await docker.createContainer({
    name: `${target.Name.replace(/^\//, '')}-restore-${randomBytes(4).toString('hex')}`,
    Image: target.Image,
    Entrypoint: entrypoint,
    Cmd: cmd,
    User: '0',
    Labels: {
      ...Object.fromEntries([LABEL_MANAGED, LABEL_INSTANCE, LABEL_PROJECT].filter((k) => labels[k] !== undefined).map((k) => [k, labels[k]!])),
      'dev.berth.restore-helper': target.Id,
    },
    HostConfig: { VolumesFrom: [target.Id], NetworkMode: 'none', LogConfig: BOUNDED_LOG_CONFIG },
  });
  try {
    await helper.start();
    const { StatusCode } = (await helper.wait()) as { StatusCode: number };
    if (StatusCode !== 0) {
      // drops the control bytes Docker's multiplexed log frame headers leave in the text
      // eslint-disable-next-line no-control-regex
      const logs = String(await helper.logs({ stdout: true, stderr: true, follow: false })).replace(/[\x00-\x08]/g, '');
      throw new Error(`the restore helper container exited with code ${StatusCode}: ${logs.trim().slice(-2000)}`);
    }
  } finally {
    // v: false: its volumes are the service container's (VolumesFrom, the same image's VOLUMEs), never its own
    await helper.remove({ force: true, v: false }).catch(() => undefined);
  }
}

async function waitForPong(ctx: ToolContext): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const reply = await execText(ctx.docker, ctx.containerId, { tool: 'redis-cli', cmd: ['redis-cli', '--no-auth-warning', 'ping'], env: authEnv(ctx) }).catch((err: Error) => err.message);
    if (reply.trim() === 'PONG') return;
    if (Date.now() > deadline) throw new Error(`redis did not answer PING within ${READY_TIMEOUT_MS / 1000} s after the restore: ${reply.trim()}`);
    await sleep(250);
  }
}

/**
 * Checks the RDB magic at the start and drops redis-cli 7.0's trailing EOF mark: an RDB ends with
 * the EOF opcode 0xFF and an 8-byte checksum, so when the last 40 bytes are lowercase hex and the
 * byte 49 from the end is 0xFF, those 40 bytes are the mark (without a mark, the byte 9 from the
 * end is that 0xFF, which is not hex, so a real RDB is never cut).
 */
class RdbStream extends Transform {
  sawMagic = false;
  private head = Buffer.alloc(0);
  private held = Buffer.alloc(0);

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    if (!this.sawMagic) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, MAGIC.length)]);
      if (this.head.length >= MAGIC.length) {
        if (!this.head.subarray(0, MAGIC.length).equals(MAGIC)) return done(new Error('redis-cli did not write an RDB file (no REDIS header)'));
        this.sawMagic = true;
      }
    }
    const all = Buffer.concat([this.held, chunk]);
    const keep = EOF_MARK_LENGTH + 9;
    if (all.length > keep) this.push(all.subarray(0, all.length - keep));
    this.held = Buffer.from(all.subarray(Math.max(0, all.length - keep)));
    done();
  }

  override _flush(done: (err?: Error | null) => void): void {
    const h = this.held;
    const mark = h.length === EOF_MARK_LENGTH + 9 && h[0] === 0xff && /^[0-9a-f]{40}$/.test(h.subarray(9).toString('latin1'));
    if (h.length > 0) this.push(mark ? h.subarray(0, 9) : h);
    done();
  }
}
