// The production tax registry over HTTP (COBRO_TAX_REGISTRY_URL). The exchange, our adapter's side of it:
//   GET <url>?document=<digits>&type=<cuil|cuit|dni>   (Accept: application/json)
//   200 {"name": "Juan Pérez"} or 200 {"name": null} (no holder)
// Anything else is "the registry did not answer" (RegistryUnavailable): no answer within the timeout
// (5 s, headers and body together), a network error, any non-2xx status (a 3xx included: redirects are
// never followed), or a 2xx whose body is not that JSON. The URL is the operator's configuration, not
// an integrator's input, so the SSRF guard of webhook destinations does not apply to it.
import type { DocumentKind } from "../tax-id.ts";
import { RegistryUnavailable, type TaxRegistry } from "./tax-registry.ts";

export const REGISTRY_TIMEOUT_MS = 5000;
/** A registry answer is a name; anything this large is not one. */
const MAX_BODY_CHARACTERS = 16 * 1024;

export interface HttpTaxRegistryOptions {
  url: string;
  /** Default 5000 ms (tests shorten it). */
  timeoutMs?: number;
}

export class HttpTaxRegistry implements TaxRegistry {
  readonly #url: URL;
  readonly #timeoutMs: number;

  constructor(options: HttpTaxRegistryOptions) {
    this.#url = new URL(options.url);
    this.#timeoutMs = options.timeoutMs ?? REGISTRY_TIMEOUT_MS;
  }

  async lookup(document: string, kind: DocumentKind): Promise<{ name: string | null }> {
    const url = new URL(this.#url);
    url.searchParams.set("document", document);
    url.searchParams.set("type", kind);
    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        method: "GET",
        headers: { accept: "application/json" },
        redirect: "manual",
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      status = response.status;
      if (status < 200 || status > 299) {
        await response.body?.cancel().catch(() => undefined);
        throw new RegistryUnavailable(`the tax registry answered ${status}`);
      }
      text = await response.text();
    } catch (error) {
      if (error instanceof RegistryUnavailable) throw error;
      const timedOut = (error as { name?: string }).name === "TimeoutError";
      throw new RegistryUnavailable(timedOut ? `the tax registry did not answer within ${this.#timeoutMs} ms` : "the tax registry could not be reached", {
        cause: error,
      });
    }
    return { name: parseAnswer(text) };
  }
}

function parseAnswer(text: string): string | null {
  if (text.length > MAX_BODY_CHARACTERS) throw new RegistryUnavailable("the tax registry's answer is too large");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new RegistryUnavailable("the tax registry's answer is not JSON", { cause: error });
  }
  if (typeof body !== "object" || body === null || !("name" in body)) throw new RegistryUnavailable("the tax registry's answer has no name");
  const { name } = body as { name: unknown };
  if (name === null) return null;
  if (typeof name !== "string") throw new RegistryUnavailable("the tax registry's name is not a string");
  const trimmed = name.trim();
  return trimmed === "" ? null : trimmed;
}
