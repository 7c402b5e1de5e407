// Structured JSON logs. Credentials never reach a log line: headers and body fields that carry them are
// redacted at the logger, whatever the call site logs.
import { pino, type Logger } from "pino";

export type { Logger };

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
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: "cobro" },
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
