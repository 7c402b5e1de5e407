// Connections that never send a byte are closed once the headers timeout passes (Node's own timeout starts
// only with a request's first byte), and each listener holds a bounded number of connections at once
// (COBRO_HTTP_MAX_CONNECTIONS): past it a new connection is closed at once. This instance is configured
// with a short headers timeout and the smallest bound so that the test waits well under a second.
import { describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import { serviceForFile } from "../helpers/service.ts";

const HEADERS_TIMEOUT_MS = 500;
const MAX_CONNECTIONS = 16;
const t = serviceForFile({
  env: {
    COBRO_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    COBRO_HTTP_REQUEST_TIMEOUT_MS: "1000",
    COBRO_HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  },
});

/** A connection to `port` that sends nothing, and when the server closed it (ms after it was opened; undefined if still open after `waitMs`). */
function silentConnection(port: number, waitMs: number): { connected: Promise<Socket>; closedAfter: Promise<number | undefined> } {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined); // a reset is a close too
  // Reading (and dropping) what comes: a paused socket would not notice the server's end of the connection.
  socket.resume();
  const started = Date.now();
  // Watched from the start: under load the server may close it before the test gets to look.
  const closedAfter = new Promise<number | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), waitMs);
    const closed = () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    };
    socket.once("end", closed);
    socket.once("close", closed);
  });
  const connected = new Promise<Socket>((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  });
  connected.catch(() => undefined); // a connection refused over the bound is what some tests expect
  return { connected, closedAfter };
}

describe("connections", () => {
  it("a connection that sends no byte is closed after the headers timeout, on every listener", async () => {
    for (const url of [t.integrationUrl, t.authUrl, t.adminUrl]) {
      // Generous bounds: a loaded CI machine can delay timers by seconds; Node alone would never close them.
      const connections = [1, 2, 3].map(() => silentConnection(Number(new URL(url).port), 15_000));
      await Promise.all(connections.map((connection) => connection.connected));
      for (const after of await Promise.all(connections.map((connection) => connection.closedAfter))) {
        expect(after, url).toBeDefined();
        expect(after!, url).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
        expect(after!, url).toBeLessThan(12_000);
      }
    }
  });

  it(`a listener holds at most ${MAX_CONNECTIONS} connections: the next one is closed at once, and a place frees when one closes`, async () => {
    const port = Number(new URL(t.integrationUrl).port);
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => silentConnection(port, 0).connected));
    try {
      const extra = silentConnection(port, HEADERS_TIMEOUT_MS - 100);
      const closedAfter = await extra.closedAfter;
      expect(closedAfter).toBeDefined();
      expect(closedAfter!).toBeLessThan(HEADERS_TIMEOUT_MS - 100);
      held.pop()!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const health = await fetch(`${t.integrationUrl}/healthz`, { headers: { connection: "close" } });
      expect(health.status).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});
