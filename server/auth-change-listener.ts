// The API process's one listening connection: `cobro_auth_changed` (notified at the commit of any change a
// token check reads) makes the TokenCheckCache forget. A lost connection stops the remembering at once and
// is opened again a second later; until then every token check reads the database.
import pg from "pg";
import type { TokenCheckCache } from "../domain/identity/token-check-cache.ts";
import type { Logger } from "./logger.ts";

const CHANNEL = "cobro_auth_changed";
const RECONNECT_MS = 1000;

export async function listenForAuthChanges(connectionString: string, cache: TokenCheckCache, logger: Logger): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const connection = new pg.Client({ connectionString });
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
