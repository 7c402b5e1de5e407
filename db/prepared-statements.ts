// Named prepared statements for Kysely's queries. PostgreSQL parses, analyses and plans every unnamed
// statement it receives; for Cobro's hot statements (the one-statement create, the reconciliation, a GET by
// referenceId) planning cost as much PostgreSQL CPU as executing them, or more (measured with
// pg_stat_statements' track_planning in the bench). A named statement is parsed once per connection, and
// after five executions PostgreSQL may keep one generic plan for it (plan_cache_mode auto).
//
// Which statements get a name: those with parameters (the others are `begin`, `commit` and the like) and no
// more than MAX_PARAMETERS of them, so that the many texts of multi-row inserts and long `in (…)` lists
// (their text changes with the row count) run unnamed, while a long statement over arrays, of one text
// whatever its rows, is named (a reconciliation batch's last statement with its requests' audit entries
// has 73); and only once a text has run twice, up to MAX_NAMES texts per process. Each server connection
// keeps the plans of the names it ran, so the bound also bounds the server's memory per connection.
//
// PgBouncer in transaction mode before 1.21 (and any pooler that does not track prepared statements) hands a
// connection's named statements to other clients: behind one, turn this off (COBRO_DB_PREPARED_STATEMENTS).
import type { PostgresPoolClient } from "kysely";
import type pg from "pg";

const MAX_PARAMETERS = 128;
const MAX_NAMES = 300;

/** Gives a statement text its name, once it has run twice; counts the texts seen so far. */
export class StatementNames {
  readonly #names = new Map<string, string>();
  readonly #seenOnce = new Set<string>();

  nameFor(text: string, parameterCount: number): string | undefined {
    if (parameterCount === 0 || parameterCount > MAX_PARAMETERS) return undefined;
    const named = this.#names.get(text);
    if (named !== undefined || this.#names.size >= MAX_NAMES) return named;
    if (!this.#seenOnce.has(text)) {
      // The texts seen once are only candidates: forget them all rather than grow without end.
      if (this.#seenOnce.size >= MAX_NAMES * 10) this.#seenOnce.clear();
      this.#seenOnce.add(text);
      return undefined;
    }
    this.#seenOnce.delete(text);
    const name = `cobro_${this.#names.size + 1}`;
    this.#names.set(text, name);
    return name;
  }
}

/**
 * The client Kysely is given for a pg client: `query(text, values)` runs as a named statement when `names`
 * gives the text one; cursors (streamed queries) and the rest go to the pg client as they are. One adapter per
 * pg client, so that Kysely keeps one connection object per pooled connection.
 */
export function namedStatementClients(names: StatementNames): (client: pg.PoolClient) => PostgresPoolClient {
  const adapters = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return (client) => {
    let adapter = adapters.get(client);
    if (!adapter) {
      const query = (config: unknown, values?: readonly unknown[]) => {
        if (typeof config !== "string" || values === undefined) return client.query(config as pg.QueryConfig);
        const name = names.nameFor(config, values.length);
        return client.query({ name, text: config, values: values as unknown[] });
      };
      adapter = { query: query as unknown as PostgresPoolClient["query"], release: () => client.release() };
      adapters.set(client, adapter);
    }
    return adapter;
  };
}
