// How an API process learns that what its token checks remember has changed. Its one listening connection:
// `cobro_auth_changed` (notified at the commit of any change a token check reads) makes the
// TokenCheckCache forget. A lost connection stops the remembering at once and is opened again a second
// later; until then every token check reads the database. And the process's own changes: see
// forgetOwnAuthChanges below.
import pg from "pg";
import { connectionConfig } from "../db/connect.ts";
import type { TokenCheckCache } from "../domain/sign-in/token-check-cache.ts";
import type { Logger } from "../runtime/logger.ts";

const CHANNEL = "cobro_auth_changed";
const RECONNECT_MS = 1000;

export async function listenForAuthChanges(connectionString: string, cache: TokenCheckCache, logger: Logger): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    // Named as the pools' connections: the one session an idle API process keeps open tells db:migrate it serves.
    const connection = new pg.Client(connectionConfig(connectionString));
    const lost = (error?: Error) => {
      if (client !== connection) return;
      client = undefined;
      cache.notListening();
      connection.end().catch(() => undefined);
      if (stopped) return;
      logger.warn({ err: error }, "lost the connection that listens for token changes: token checks read the database until it is back");
      retry = setTimeout(() => void connect().catch(() => lost()), RECONNECT_MS);
    };
    client = connection;
    connection.on("error", lost);
    connection.on("end", () => lost());
    connection.on("notification", () => cache.changed());
    try {
      await connection.connect();
      await connection.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      lost(error as Error);
      return;
    }
    if (client === connection) cache.listening();
  };

  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const connection = client;
    client = undefined;
    cache.notListening();
    await connection?.end().catch(() => undefined);
  };
}

/**
 * A change this process writes is forgotten as soon as its transaction ends, before the request's answer
 * leaves: the notification may reach the listening connection only after the caller's next request (a
 * sign-out must hold for it). The same trigger that notifies sends the writing connection a notice
 * (db/migrations/2026_11_23_0025_auth_changed_notice.ts); the memory is forgotten when that connection
 * returns to the pool, after the commit (until then the change is not visible, so checks read meanwhile
 * are right). Writes that change nothing a token check reads forget nothing.
 */
export function forgetOwnAuthChanges(pool: pg.Pool, cache: TokenCheckCache): () => Promise<void> {
  const watched = new WeakSet<pg.PoolClient>();
  const wroteAChange = new WeakSet<pg.PoolClient>();
  const onAcquire = (client: pg.PoolClient) => {
    if (watched.has(client)) return;
    watched.add(client);
    client.on("notice", (notice) => {
      if (notice.message === CHANNEL) wroteAChange.add(client);
    });
  };
  const onRelease = (_error: Error | undefined, client: pg.PoolClient) => {
    if (wroteAChange.delete(client)) cache.changed();
  };
  pool.on("acquire", onAcquire);
  pool.on("release", onRelease);
  return async () => {
    pool.off("acquire", onAcquire);
    pool.off("release", onRelease);
  };
}
