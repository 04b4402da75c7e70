// One user statement (or a row page) through the extended protocol with a row limit and the
// socket's byte budget: what keeps a huge result from ever sitting in the daemon's memory.
import pg from 'pg';
import type { FieldDef, QueryConfig } from 'pg';
import type { SocketBudget } from '../answer-budget.js';
import type { Cell } from '../encoding.js';
import { TYPES } from './types.js';

/** After the row cap, a result is still counted (not kept) up to this many rows, for rowCount. */
const COUNT_PAST_CAP = 1_000_000;
const DRAIN_BATCH = 10_000;

interface ProtocolConnection {
  close(msg: { type: 'P' | 'S'; name: string }): void;
  sync(): void;
}
interface QueryInternals {
  handleDataRow(msg: unknown): void;
  handlePortalSuspended(con: ProtocolConnection): void;
  handleCommandComplete(msg: unknown, con: ProtocolConnection): void;
  handleEmptyQuery(con: ProtocolConnection): void;
  handleError(err: Error, con: ProtocolConnection): void;
  rows: number;
}
export interface CappedResult {
  fields: FieldDef[];
  rows: Cell[][];
  rowCount: number | null;
}

/**
 * One user statement through the extended protocol, executed with a row limit (maxRows + 1): the
 * first `keep` rows are parsed and kept, the rest only counted (batch by batch, up to
 * COUNT_PAST_CAP or half the time budget), then the portal is closed. pg's Query does the
 * protocol; this subclass overrides the hooks pg-cursor also relies on.
 */
export class CappedQuery extends pg.Query {
  seen = 0;
  private synced = false;
  private answered = false;
  private readonly base: QueryInternals;

  constructor(
    text: string,
    values: unknown[],
    private readonly keep: number,
    private readonly countUntil: number,
    private readonly budget: SocketBudget,
    callback: (err: Error | undefined, res: CappedResult) => void,
  ) {
    const once = (err: Error | undefined, res: CappedResult) => {
      if (this.answered) return;
      this.answered = true;
      callback(err, res);
    };
    const config = { text, values, rowMode: 'array', rows: keep + 1, queryMode: 'extended', types: TYPES };
    super(config as QueryConfig, once as never);
    this.base = pg.Query.prototype as unknown as QueryInternals;
  }

  handleDataRow(msg: unknown): void {
    this.seen++;
    if (this.seen <= this.keep) this.base.handleDataRow.call(this, msg);
  }

  handlePortalSuspended(con: ProtocolConnection): void {
    if (this.seen >= COUNT_PAST_CAP || Date.now() >= this.countUntil) {
      this.synced = true;
      con.close({ type: 'P', name: '' });
      con.sync();
      return;
    }
    (this as unknown as QueryInternals).rows = DRAIN_BATCH;
    this.base.handlePortalSuspended.call(this, con);
  }

  handleCommandComplete(msg: unknown, con: ProtocolConnection): void {
    this.synced = true; // the base class syncs after completion when `rows` is set
    this.base.handleCommandComplete.call(this, msg, con);
  }

  handleEmptyQuery(con: ProtocolConnection): void {
    this.synced = true;
    this.base.handleEmptyQuery.call(this, con);
  }

  handleError(err: Error, con: ProtocolConnection): void {
    if (this.budget.exceeded) {
      // The byte budget cut the connection: the rows complete before the cut are the answer.
      this.synced = true;
      const self = this as unknown as { callback: (err: Error | undefined, res: CappedResult) => void; _result: CappedResult };
      self.callback(undefined, self._result);
      return;
    }
    // With a row limit pg does not pipeline Sync, and after an error the server waits for one.
    if (!this.synced && err instanceof pg.DatabaseError) {
      this.synced = true;
      con.sync();
    }
    this.base.handleError.call(this, err, con);
  }
}
