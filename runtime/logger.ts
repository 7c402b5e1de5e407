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

/** The fields of a line written by `requestLogging`. */
interface RequestLine {
  api?: string;
  req: { method?: string; url?: string };
  res: { statusCode?: number };
  responseTime: number;
}

function isRequestLine(log: Record<string, unknown>): log is Record<string, unknown> & RequestLine {
  return typeof log.responseTime === "number" && typeof log.req === "object" && log.req !== null && typeof log.res === "object" && log.res !== null;
}

/** A request as a person reads it at a terminal: `GET /charges 201 14ms (integration)`. */
function requestSummary(log: RequestLine): string {
  return `${log.req.method} ${log.req.url} ${log.res.statusCode} ${log.responseTime}ms${log.api ? ` (${log.api})` : ""}`;
}

/**
 * The message of a pretty line: a request's summary (with what happened when it did not complete), or the
 * message followed by the worker's `queue` context on the same line, in words.
 */
function prettyMessage(log: Record<string, unknown>, messageKey: string): string {
  // A line of `npm start`'s worker child, on the same terminal as the APIs' lines.
  const message = `${typeof log.role === "string" ? `(${log.role}) ` : ""}${String(log[messageKey] ?? "")}`;
  const request = typeof log.request === "string" ? log.request : isRequestLine(log) ? requestSummary(log) : undefined;
  if (request !== undefined) return message === "request completed" ? request : `${request}: ${message}`;
  const context = queueContext(log.queue, message);
  return context === "" ? message : `${message} · ${context}`;
}

/** The words a queue context's fields read as, in this order; graphile-worker's `label` is only its scope's name. */
const QUEUE_CONTEXT_WORDS: Record<string, (value: string) => string | undefined> = {
  task: (value) => value,
  taskIdentifier: (value) => value,
  jobId: (value) => `job ${value}`,
  attempts: (value) => (Number(value) > 1 ? `attempt ${value}` : undefined),
  workerId: (value) => `worker ${value}`,
  label: () => undefined,
};

/**
 * A worker line's queue context in words (`deliver-event, job 42, worker worker-1`), leaving out what the
 * message already says: graphile-worker's own messages name the job and task (`Completed task 42
 * (deliver-event, …)`), and a JSON object at the end of a line is for machines, which read the JSON format.
 */
function queueContext(queue: unknown, message: string): string {
  if (typeof queue !== "object" || queue === null) return "";
  const said = (value: string) => new RegExp(`(^|[^\\w-])${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}($|[^\\w-])`).test(message);
  const words: string[] = [];
  const known = Object.keys(QUEUE_CONTEXT_WORDS);
  const rank = (key: string) => (known.includes(key) ? known.indexOf(key) : known.length);
  for (const [key, value] of Object.entries(queue).sort(([a], [b]) => rank(a) - rank(b))) {
    if (value === undefined || value === null) continue;
    const text = String(value);
    if (said(text)) continue;
    const word = key in QUEUE_CONTEXT_WORDS ? QUEUE_CONTEXT_WORDS[key]!(text) : `${key} ${text}`;
    if (word !== undefined && !words.includes(word)) words.push(word);
  }
  return words.join(", ");
}

/**
 * The pino options for the pretty format. Below `debug` a request line keeps only its summary (method,
 * path, status, time and API), so that it is one line at the terminal; at `debug` and `trace` it keeps its
 * fields, the request id among them.
 */
function prettyFormatting(level: string): pino.LoggerOptions["formatters"] {
  if (pino.levels.values[level]! <= pino.levels.values.debug!) return {};
  return { log: (object) => (isRequestLine(object) ? { request: requestSummary(object) } : object) };
}

/**
 * A logger at `level`, writing to `destination` (standard output by default) in `format` (JSON by default).
 * Pretty lines are for a person at a terminal: one line a request, the fields of other lines below them,
 * errors with their stack. Both formats take the same redaction, before either writes.
 */
export function createLogger(level: string, destination?: pino.DestinationStream, format: LogFormat = "json"): Logger {
  const output =
    format === "pretty"
      ? pretty({
          destination: destination ?? 1,
          sync: true,
          translateTime: "SYS:HH:MM:ss.l",
          ignore: "pid,hostname,service,request,queue,role",
          messageFormat: prettyMessage,
        })
      : (destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 }));
  return pino(
    {
      level,
      base: { service: "cobro" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(format === "pretty" ? { formatters: prettyFormatting(level) } : {}),
    },
    output,
  );
}

/**
 * Writes whole log lines from elsewhere (a child process's output) through the logger's own output, so
 * they never interleave mid-line with its lines: into the JSON format's buffer, or, for the pretty format
 * (which writes synchronously), straight to standard output.
 */
export function logLineWriter(logger: Logger): (lines: string) => void {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as { write?: (text: string) => unknown } | undefined;
  if (stream && "flushSync" in stream && typeof stream.write === "function") return (lines) => void stream.write!(lines);
  return (lines) => void process.stdout.write(lines);
}

/** Writes out what the logger still buffers (before the process exits). */
export function flushLogs(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}
