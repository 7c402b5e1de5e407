// Structured JSON logs, or readable lines for a person at a terminal (`pretty`, pino-pretty in this process,
// synchronous so that nothing is lost when the process exits). JSON to standard output is written
// asynchronously (buffered, so a request never waits on a write to the terminal or pipe); whoever exits
// the process calls `flushLogs` first, so a normal stop loses no line. Credentials never reach a log line: headers
// and body fields that carry them are redacted at the logger, before either format writes, whatever the
// call site logs.
import type { IncomingMessage, ServerResponse } from "node:http";
import { pino, type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger };

export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const REDACTED_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["validation-token"]',
  'res.headers["set-cookie"]',
  "*.password",
  "*.currentPassword",
  "*.newPassword",
  "*.clientSecret",
  "*.client_secret",
  "*.refreshToken",
  "*.refresh_token",
  "*.idToken",
  "*.id_token",
  "*.access_token",
  "*.code",
  "*.token",
  "*.secretKey",
  "*.webhookSigningSecret",
  "*.providerClientSecret",
  "*.webhook_validation_token",
  "*.validationToken",
  "*.connectionString",
  "*.smtpUrl",
];

/** Query parameters that carry a secret (a password reset link's `token`): a request's logged URL shows them redacted. */
const REDACTED_QUERY_PARAMETERS = ["token", "code", "client_secret", "refresh_token", "id_token", "access_token"];
const SECRET_IN_QUERY = new RegExp(`([?&](?:${REDACTED_QUERY_PARAMETERS.join("|")})=)[^&#]*`, "g");

/**
 * Path segments that are secrets themselves: the payer page's token (`/p/{token}`, also under the
 * Integration API's `/integration` prefix) opens the page and can ask for a payment confirmation.
 */
const SECRET_IN_PATH = /^(\/(?:integration\/)?p\/)[^/?#]+/;

/** A request URL fit for a log line: secrets in the path and the query redacted. */
export function redactedUrl(url: string | undefined): string | undefined {
  return url?.replace(SECRET_IN_PATH, "$1[redacted]").replace(SECRET_IN_QUERY, "$1[redacted]");
}

/**
 * One line per request, written when its response is finished (or the client went away): its id, method,
 * URL (secrets in the query redacted), status and time. Nothing is allocated for the log before then; the
 * request's own logger (for its handler's lines, bound to its id) is made only when asked for.
 */
export function requestLogging(logger: Logger, api: string) {
  return (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse, requestId: string): void => {
    const started = performance.now();
    const write = (aborted: boolean) => {
      const line = {
        api,
        req: { id: requestId, method: req.method, url: redactedUrl(req.originalUrl ?? req.url) },
        res: { statusCode: res.statusCode },
        responseTime: Math.round(performance.now() - started),
      };
      if (aborted) logger.warn(line, "request aborted");
      else if (res.statusCode >= 500) logger.error(line, "request errored");
      else logger.info(line, "request completed");
    };
    res.once("close", () => write(!res.writableFinished));
  };
}

/** A logger at `level`, writing to `destination` (standard output by default) in `format` (JSON by default). */
export function createLogger(level: string, destination?: pino.DestinationStream, format: LogFormat = "json"): Logger {
  const output =
    format === "pretty"
      ? pretty({ destination: destination ?? 1, sync: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname,service" })
      : (destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 }));
  return pino(
    {
      level,
      base: { service: "cobro" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    output,
  );
}

/** Writes out what the logger still buffers (before the process exits). */
export function flushLogs(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
