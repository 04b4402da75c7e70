// MongoDB: mongodump's archive format (one stream holding every database's collections, metadata
// and indexes) and mongorestore, run inside the container against its own mongod on localhost as
// the root user the official image created (MONGO_INITDB_ROOT_USERNAME / _PASSWORD, in `admin`).
//
//   dump:    mongodump --config=<file> --username=<user> --authenticationDatabase=admin --archive
//   restore: mongorestore --config=<file> --username=<user> --authenticationDatabase=admin
//              --archive --drop --nsExclude=admin.*                     (the archive on stdin)
//
// The database tools read no password from the environment; since 100.3.0 they take a YAML
// `--config` file with `password:`, documented as the recommended way. The file is written into the
// container's /tmp through an exec's stdin (mode 0600) and removed afterwards: the password is in
// neither argv nor the daemon's logs. The `admin` database is left out of the restore: with --drop,
// mongorestore replaces all users with the dump's, so a dump from another service would lock the
// daemon out (its root user's password comes from this service's variables).
//
// Written from the tools' documentation and the archive format specification (magic number
// 0x8199e26d, little-endian): no MongoDB server can run on the test machines, so this file is
// compiled but not exercised against a real mongod.
import type { EngineBackupTool, ToolContext } from '../backup-tool.js';
import { execInContainer, readHead, withSecretFile } from '../../docker/exec.js';

const MAGIC = Buffer.from([0x6d, 0xe2, 0x99, 0x81]);

function login(ctx: ToolContext): { user: string; config: string } {
  // JSON strings are valid YAML double-quoted scalars: any password survives the quoting.
  return { user: ctx.env.MONGO_INITDB_ROOT_USERNAME ?? '', config: `password: ${JSON.stringify(ctx.env.MONGO_INITDB_ROOT_PASSWORD ?? '')}\n` };
}

export const mongodbTool: EngineBackupTool = {
  format: 'archive',
  extension: 'archive',

  async dump(ctx, out) {
    const { user, config } = login(ctx);
    await withSecretFile(ctx.docker, ctx.containerId, config, (path) =>
      execInContainer(ctx.docker, ctx.containerId, {
        tool: 'mongodump',
        cmd: ['mongodump', `--config=${path}`, `--username=${user}`, '--authenticationDatabase=admin', '--archive'],
        stdout: out,
        signal: ctx.signal,
      }),
    );
  },

  async restore(ctx, input) {
    const { head, rest } = await readHead(input, MAGIC.length);
    if (!head.equals(MAGIC)) {
      rest.destroy();
      throw new Error(`the backup file is ${head.length === 0 ? 'empty' : 'not a mongodump archive (wrong magic number)'}; nothing was restored`);
    }
    const { user, config } = login(ctx);
    await withSecretFile(ctx.docker, ctx.containerId, config, (path) =>
      execInContainer(ctx.docker, ctx.containerId, {
        tool: 'mongorestore',
        cmd: ['mongorestore', `--config=${path}`, `--username=${user}`, '--authenticationDatabase=admin', '--archive', '--drop', '--nsExclude=admin.*'],
        stdin: rest,
        signal: ctx.signal,
      }),
    );
  },
};
