// Reads that can return a row per service, a page at a time. node-sqlite3 builds a statement's whole
// result in C++ (a malloc per value) before JavaScript sees a row, so one SELECT of 10,000 services
// took glibc's heap from 5 to 45 MB, and the heap stayed there after the rows were freed (what the
// conversion to JavaScript allocated meanwhile sits above them). Read 1,000 rows at a time, the same
// rows left 7 MB, in the same time (285 against 300 ms; bench:api's 10,000-service idle RSS).
import type { Knex } from 'knex';

/** Rows per SELECT. 250 and 500 were slower (offsets re-walk the order), 2,000 left 14 MB. */
const PAGE_ROWS = 1000;

/**
 * Every row of `query` (which must have a total ORDER BY), PAGE_ROWS at a time. A result that fits
 * one page is one statement; a larger one is read again inside one transaction, so that the pages
 * are one snapshot: a write between two pages can neither skip a row nor repeat one.
 */
export async function readPaged<T>(knex: Knex, query: (db: Knex) => Knex.QueryBuilder, pageRows = PAGE_ROWS): Promise<T[]> {
  const first = (await query(knex).limit(pageRows)) as T[];
  if (first.length < pageRows) return first;
  return knex.transaction(async (trx) => {
    const rows: T[] = [];
    for (let offset = 0; ; offset += pageRows) {
      const page = (await query(trx).limit(pageRows).offset(offset)) as T[];
      for (const row of page) rows.push(row);
      if (page.length < pageRows) return rows;
    }
  });
}
