// A TCP proxy on loopback in front of PostgreSQL whose line a test can cut: the connections through it
// drop and new ones are refused, as when the database goes away, while the database itself stays up for
// the test's own checks.
import { connect, createServer, type Socket } from "node:net";

export interface CuttableProxy {
  /** The database's connection string, through the proxy. */
  connectionString: string;
  /** Drops every connection through the proxy and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startCuttableProxy(connectionString: string): Promise<CuttableProxy> {
  const target = new URL(connectionString);
  const sockets = new Set<Socket>();
  let open = true;
  const server = createServer((client) => {
    if (!open) return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const pair = [client, upstream];
    const drop = () => {
      for (const socket of pair) {
        socket.destroy();
        sockets.delete(socket);
      }
    };
    for (const socket of pair) {
      sockets.add(socket);
      socket.on("error", drop).on("close", drop);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const through = new URL(connectionString);
  through.hostname = "127.0.0.1";
  through.port = String((server.address() as { port: number }).port);
  return {
    connectionString: through.toString(),
    cut: () => {
      open = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    restore: () => {
      open = true;
    },
    close: async () => {
      open = false;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
