// The service's own logger (runtime/logger.ts) writing into memory: tests read the lines to check that an
// error was logged, or that no secret ever reached a log line.
import { Writable } from "node:stream";
import { createLogger, type Logger } from "../../runtime/logger.ts";

export interface CapturedLogs {
  logger: Logger;
  /** Every line logged so far, parsed, oldest first. */
  logLines: Array<Record<string, unknown>>;
}

export function captureLogs(level = "info"): CapturedLogs {
  const logLines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger(level, sink), logLines };
}
