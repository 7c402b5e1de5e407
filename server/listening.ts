// Binding and closing the process's HTTP listeners (the APIs' and the metrics'), with a taken port or a
// refused one reported as a start-up error that names the variable to change.
import type { Server } from "node:http";
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

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    // In-flight requests finish; keep-alive sockets with nothing in flight go now, stragglers in 10 s.
    setTimeout(() => server.closeAllConnections(), 10_000).unref();
  });
}

/** The URL of a listener bound on `host` (an IPv6 address in brackets). */
export function listenerUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
