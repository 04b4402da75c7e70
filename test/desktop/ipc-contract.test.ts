// The desktop IPC contract (desktop/ipc/contract.ts) is the only statement of the channels: the
// compiled preload, run as the sandbox runs it (it may require only `electron`), uses exactly the
// contract's channel names for each call; the main process registers a handler for exactly the
// contract's invoke channels and pushes on its `stream` channel; the renderer names no channel
// and takes its bridge type from the contract.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createBridgeHandlers, type BridgeBackend } from '../../desktop/main/bridge-handlers.js';
import { registerIpcHandlers } from '../../desktop/main/ipc-main.js';
import { IPC_CHANNELS, type IpcInvokeContract } from '../../desktop/ipc/contract.js';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { ipcStandIn } from './stand-ins.js';

const APP_ORIGIN = 'berth-app://console';

/** A backend answering every call at once (this suite is about the channels, not the servers). */
function quietBackend(): BridgeBackend {
  return {
    forward: () => Promise.resolve({ status: 200, body: { ok: true } }),
    open: (_serverId, _stream, deliver) => {
      deliver({ type: 'state', state: 'open' });
      deliver({ type: 'event', event: { event: 'status', data: { n: 1 } } });
      return () => undefined;
    },
    download: () => Promise.resolve({ saved: false }),
    postStream: (_serverId, _path, body, deliver) => {
      deliver({ type: 'state', state: 'open' });
      deliver({ type: 'event', event: { event: 'exit', data: { exitCode: 0, body } } });
      return () => undefined;
    },
    terminal: (_serverId, _path, deliver) => {
      deliver({ type: 'open' });
      return {
        input: (data) => deliver({ type: 'output', data: `echo:${data}` }),
        resize: (cols, rows) => deliver({ type: 'output', data: `size:${cols}x${rows}` }),
        close: () => deliver({ type: 'closed', code: 1000, reason: 'closed by the user' }),
      };
    },
    hasServer: (id) => id === 'one',
    serverSummaries: () => [],
    local: () => Promise.resolve({ status: 200, body: {} }),
  };
}

describe('desktop IPC contract', () => {
  const INVOKE: (keyof IpcInvokeContract)[] = ['request', 'servers', 'subscribe', 'unsubscribe', 'download', 'postStream', 'terminalOpen', 'terminalInput', 'terminalResize', 'terminalClose'];

  it('names every invoke channel of IpcInvokeContract and the push channels, all distinct', () => {
    expect(Object.keys(IPC_CHANNELS).sort()).to.deep.equal([...INVOKE, 'stream', 'terminal'].sort());
    expect(new Set(Object.values(IPC_CHANNELS)).size).to.equal(Object.keys(IPC_CHANNELS).length);
  });

  it('the channel names used by the preload and the main process are those of the contract', async () => {
    const ipc = ipcStandIn();
    const trusted = new Set<number>([1]);
    registerIpcHandlers(ipc.ipcMain, createBridgeHandlers(quietBackend(), { appOrigin: APP_ORIGIN, trustedWebContents: trusted }));
    expect([...ipc.channels.handled].sort(), 'main handles').to.deep.equal(INVOKE.map((n) => IPC_CHANNELS[n]).sort());

    const { berth } = ipc.window({ frameUrl: `${APP_ORIGIN}/`, webContentsId: 1 });
    expect(Object.keys(berth).sort(), 'window.berth').to.deep.equal(['download', 'openTerminal', 'postStream', 'request', 'servers', 'subscribe']);
    expect(ipc.channels.listened, 'the preload listens').to.deep.equal([IPC_CHANNELS.stream, IPC_CHANNELS.terminal]);

    const used = (from: number) => ipc.channels.invoked.slice(from);
    let n = ipc.channels.invoked.length;
    expect(await berth.request('one', 'GET', '/api/health')).to.deep.equal({ status: 200, body: { ok: true } });
    expect(used(n)).to.deep.equal([IPC_CHANNELS.request]);
    n = ipc.channels.invoked.length;
    expect(await berth.servers()).to.deep.equal([]);
    expect(used(n)).to.deep.equal([IPC_CHANNELS.servers]);
    n = ipc.channels.invoked.length;
    expect(await berth.download('one', '/api/services/s1/database/tls/ca', 'berth-ca.pem')).to.deep.equal({ saved: false });
    expect(used(n)).to.deep.equal([IPC_CHANNELS.download]);

    n = ipc.channels.invoked.length;
    const got: unknown[] = [];
    const stop = berth.subscribe(
      'one',
      '/api/events',
      (e) => got.push(e),
      (s) => got.push(s),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(got, 'messages pushed by main reach the subscriber').to.deep.equal(['open', { event: 'status', data: { n: 1 } }]);
    expect(ipc.channels.sent).to.deep.equal([IPC_CHANNELS.stream, IPC_CHANNELS.stream]);
    stop();
    await new Promise((r) => setTimeout(r, 20));
    expect(used(n)).to.deep.equal([IPC_CHANNELS.subscribe, IPC_CHANNELS.unsubscribe]);

    n = ipc.channels.invoked.length;
    const execGot: unknown[] = [];
    const stopExec = berth.postStream(
      'one',
      '/api/services/s1/exec',
      { command: ['true'] },
      (e) => execGot.push(e),
      (s) => execGot.push(s),
    );
    await new Promise((r) => setTimeout(r, 20));
    expect(execGot).to.deep.equal(['open', { event: 'exit', data: { exitCode: 0, body: { command: ['true'] } } }]);
    stopExec();
    await new Promise((r) => setTimeout(r, 20));
    expect(used(n)).to.deep.equal([IPC_CHANNELS.postStream, IPC_CHANNELS.unsubscribe]);

    n = ipc.channels.invoked.length;
    const termGot: unknown[] = [];
    const term = berth.openTerminal('one', '/api/services/s1/terminal', (m) => termGot.push(m));
    await new Promise((r) => setTimeout(r, 20));
    term.input('ls\r');
    term.resize(100, 30);
    await new Promise((r) => setTimeout(r, 20));
    term.close();
    await new Promise((r) => setTimeout(r, 20));
    expect(termGot).to.deep.equal([{ type: 'open' }, { type: 'output', data: 'echo:ls\r' }, { type: 'output', data: 'size:100x30' }]);
    expect(used(n)).to.deep.equal([IPC_CHANNELS.terminalOpen, IPC_CHANNELS.terminalInput, IPC_CHANNELS.terminalResize, IPC_CHANNELS.terminalClose]);
  });

  it('the renderer names no channel and takes window.berth from the contract', () => {
    const dir = join(REPO_ROOT, 'desktop/renderer/src/transport');
    for (const f of ['bridge.ts', 'transport.ts', 'web.ts']) expect(readFileSync(join(dir, f), 'utf8'), f).not.to.match(/['"`]berth:/);
    expect(readFileSync(join(dir, 'bridge.ts'), 'utf8')).to.match(/import type \{ BerthApi[^}]*\} from '\.\.\/\.\.\/\.\.\/ipc\/contract'/);
  });
});
