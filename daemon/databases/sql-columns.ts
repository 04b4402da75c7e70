// Column checks both SQL adapters share: every name a request gives must be a column of the
// table (from the catalogue), and a row is addressed by exactly its primary key.
import { InvalidInput } from '../core/errors.js';
import type { Cell, Row } from './encoding.js';

export interface CatalogueColumn {
  name: string;
  primary: boolean;
}

/** The catalogue column of every name in `values`; an unknown name is refused. */
export function pickColumns<C extends CatalogueColumn>(columns: readonly C[], values: Row, what: string): [C, Cell][] {
  if (values === null || typeof values !== 'object' || Array.isArray(values)) throw new InvalidInput(`${what} must be an object`);
  return Object.entries(values).map(([name, cell]) => {
    const column = columns.find((c) => c.name === name);
    if (!column) throw new InvalidInput(`unknown column ${JSON.stringify(name)}`);
    return [column, cell];
  });
}

/**
 * `<col> = <placeholder> AND ...` for exactly the table's primary key. `placeholder` records the
 * parameter and returns its marker ($n or ?); `quote` quotes a checked identifier.
 */
export function primaryKeyMatch<C extends CatalogueColumn>(
  columns: readonly C[],
  primaryKey: readonly string[],
  key: Row,
  quote: (name: string) => string,
  placeholder: (column: C, cell: Cell) => string,
): string {
  if (!primaryKey.length) throw new InvalidInput('this table has no primary key, so its rows cannot be addressed one by one');
  const given = pickColumns(columns, key, 'primaryKey');
  if (given.length !== primaryKey.length || !given.every(([c]) => c.primary)) {
    throw new InvalidInput(`primaryKey must name exactly the primary key columns: ${primaryKey.join(', ')}`);
  }
  return given.map(([c, cell]) => `${quote(c.name)} = ${placeholder(c, cell)}`).join(' AND ');
}
