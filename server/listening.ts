// Binding and closing the process's HTTP listeners (the APIs' and the metrics'), with a taken port or a
// refused one reported as a start-up error that names the variable to change.
import type { Server, ServerResponse } from "node:http";
import { CobroStartupError } from "../db/errors.ts";

/** `what` names the listener in the message ("auth API", "metrics"), `variable` the setting that moves it. */
export function listen(server: Server, port: number, host: string, what: string, variable: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off("listening", onListening);
      if (error.code === "EADDRINUSE") reject(new CobroStartupError(`Port ${port} (${what}) is already in use: stop what uses it or set ${variable}`));
      else if (error.code === "EACCES") reject(new CobroStartupError(`No permission to listen on port ${port} (${what}): set ${variable}`));
      else reject(error);
    };
    const onListening = () => {
      server.off("error", onError);
      resolve();
    };
    server.once("error", onError);
    server.once("listening", onListening);
    server.listen(port, host);
  });
}

/** How long a closing listener lets its requests in flight finish before it cuts their connections. */
export const LISTENER_GRACE_MS = 10_000;

const closing = new WeakSet<Server>();
const answersInProgress = new WeakMap<Server, Set<ServerResponse>>();

/**
 * Follows a listener's answers in progress (call once, when it is created), so that closeServer can make
 * them its last on their connections; an answer begun after the close starts is marked at once.
 */
export function trackAnswers(server: Server): void {
  const answers = new Set<ServerResponse>();
  answersInProgress.set(server, answers);
  server.on("request", (_request, response: ServerResponse) => {
    if (closing.has(server)) return lastOnItsConnection(response);
    answers.add(response);
    response.once("close", () => answers.delete(response));
  });
}

/**
 * From now on every answer is the last on its connection (`Connection: close`): its client opens its next
 * connection elsewhere (to another process behind the load balancer). The listener still accepts: a stop's
 * drain, before closeServer.
 */
export function drainServer(server: Server): void {
  closing.add(server);
  for (const response of answersInProgress.get(server) ?? []) lastOnItsConnection(response);
}

/**
 * Stops accepting connections at once; keep-alive connections with nothing in flight close now; requests in
 * flight finish, their answers sent with `Connection: close` (drainServer); whatever is still open after
 * LISTENER_GRACE_MS is cut off. Resolves when every connection is closed.
 */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    drainServer(server);
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), LISTENER_GRACE_MS).unref();
  });
}

function lastOnItsConnection(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader("Connection", "close");
}

/** The URL of a listener bound on `host` (an IPv6 address in brackets). */
export function listenerUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
