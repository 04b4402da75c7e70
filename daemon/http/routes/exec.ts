// One-off commands (an SSE answer: `output` events, then one `exit`), their record, and the
// terminal's route: a plain GET answers 426 after the key check; the WebSocket upgrade of the same
// path is routed here by terminal-ws.ts and accepted once core has opened the TTY.
import { z } from 'zod';
import type { ExecInput } from '../../../shared/types.js';
import { argvProblem, EXEC_LIMITS } from '../../core/execs.js';
import { Forbidden, TooMany, Conflict } from '../../core/errors.js';
import { route } from '../route-table.js';
import { openSse } from '../sse.js';
import { pendingUpgrade, refuseAfterUpgrade } from '../terminal-ws.js';
import { noteAudit } from '../audit.js';
import { joinCommandLine } from '../../../shared/command-line.js';

const execBody = z
  .object({
    command: z
      .array(z.string().max(EXEC_LIMITS.maxArgChars, `command items have at most ${EXEC_LIMITS.maxArgChars} characters`))
      .min(1, 'command must be a non-empty array of strings (argv)')
      .max(EXEC_LIMITS.maxArgs, `command has at most ${EXEC_LIMITS.maxArgs} items`)
      .superRefine((argv, ctx) => {
        const problem = argvProblem(argv);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      }),
    mode: z.enum(['attach', 'run']).optional(),
  })
  .strict() satisfies z.ZodType<ExecInput>;

const dimension = z.coerce.number().int().min(1).max(1000);
const sizeQuery = z.object({ cols: dimension.optional().catch(undefined), rows: dimension.optional().catch(undefined) });

export const execRoutes = {
  ...route('exec.start', {
    body: execBody,
    handler: async ({ ctx, access, params, body }, { core, sse, pingMs }) => {
      // the audit entry names the command (its output and input are never recorded)
      noteAudit(ctx, { detail: joinCommandLine(body.command) });
      // every refusal (403, 404, 409 without a live deployment, 429 at a cap) comes before the stream
      const prepared = await core.execs.prepare(access, params.serviceId, body);
      let channel;
      try {
        channel = openSse(ctx, pingMs, () => undefined, { streams: sse, stillAllowed: () => core.execs.stillAllowed(access, params.serviceId) });
      } catch (err) {
        prepared.cancel();
        throw err;
      }
      const open = channel;
      const abort = new AbortController();
      // the client went away, the key was revoked, or it read too slowly (sse.ts drops it): the command ends
      open.onClose(() => abort.abort());
      // A POST's request emits 'close' once its body was read (sse.ts listens there, fine for GETs):
      // the response's 'close' is what tells that this client went away.
      ctx.res.once('close', () => open.close());
      void prepared
        .run((line, stream) => open.send('output', { stream, line }), abort.signal)
        .then(
          (outcome) => open.send('exit', outcome.error !== undefined ? { exitCode: outcome.exitCode, error: outcome.error } : { exitCode: outcome.exitCode }),
          (err: unknown) => open.send('exit', { exitCode: null, error: (err as Error).message }),
        )
        .finally(() => open.close());
    },
  }),
  ...route('exec.list', {
    handler: async ({ access, params }, { core }) => ({ execs: await core.execs.list(access, params.serviceId) }),
  }),
  ...route('terminal', {
    handler: async ({ ctx, access, params }, { core, sse }) => {
      const upgrade = pendingUpgrade(ctx.req);
      if (!upgrade) {
        await core.execs.checkTerminal(access, params.serviceId);
        ctx.status = 426;
        ctx.set('Upgrade', 'websocket');
        ctx.set('Connection', 'Upgrade');
        return { error: { code: 'upgrade_required', message: 'the terminal is a WebSocket: open this path with an Upgrade: websocket request' } };
      }
      // A console session's socket must come from the console's own page: browsers always send Origin
      // with a WebSocket, so one without it is not the console (sessionLayer checked a present one).
      if (typeof ctx.state.sessionHash === 'string' && !ctx.get('origin')) throw new Forbidden('cross-site request refused: the console only accepts requests from its own origin');
      await core.execs.checkTerminal(access, params.serviceId);
      const q = sizeQuery.parse({ cols: ctx.query.cols, rows: ctx.query.rows });
      let opened;
      try {
        opened = await core.execs.terminal(access, params.serviceId, { cols: q.cols ?? 80, rows: q.rows ?? 24 });
      } catch (err) {
        // a browser's WebSocket never sees an HTTP status: caps and a missing live deployment are
        // told as the close reason of an accepted socket (401/403/404 stay plain HTTP answers)
        if (err instanceof TooMany || err instanceof Conflict) {
          ctx.respond = false;
          noteAudit(ctx, { status: err.status, errorCode: err.code });
          refuseAfterUpgrade(upgrade, err instanceof TooMany ? 4429 : 4409, err.message);
          return undefined;
        }
        throw err;
      }
      ctx.respond = false;
      noteAudit(ctx, { status: 101 });
      upgrade.accept(opened, {
        streams: sse,
        keyId: access.key.id,
        sessionHash: typeof ctx.state.sessionHash === 'string' ? ctx.state.sessionHash : null,
        stillAllowed: () => core.execs.stillAllowed(access, params.serviceId),
      });
      return undefined;
    },
  }),
};
