// Throttled guessing on the Auth API's pages for people: the 429 page says in Spanish how long to wait,
// with the same Retry-After as the JSON answers (which server/http/error-responses.ts writes).
import { DomainError } from "../../domain/errors.ts";

/** The seconds to wait when `error` is a TooManyAttemptsError; undefined for anything else. */
export function tooManyAttemptsWait(error: unknown): number | undefined {
  if (!(error instanceof DomainError) || error.code !== "TooManyAttemptsError") return undefined;
  const seconds = (error.details as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === "number" ? seconds : undefined;
}

/** `Demasiados intentos. Probá de nuevo en 3 minutos.` (whole minutes, rounded up). */
export function tooManyAttemptsText(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return `Demasiados intentos. Probá de nuevo en ${minutes} ${minutes === 1 ? "minuto" : "minutos"}.`;
}

export function retryAfterHeader(retryAfterSeconds: number): { "Retry-After": string } {
  return { "Retry-After": String(retryAfterSeconds) };
}
