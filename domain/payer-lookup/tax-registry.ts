// The tax-authority registry behind `GET /payer-lookup`: who holds a payer document. One interface, two
// implementations: the deterministic Sandbox registry (sandbox-registry.ts) and the HTTP adapter for the
// real registry (http-registry.ts). server/service.ts picks one per environment.
import type { DocumentKind } from "../tax-id.ts";

export interface TaxRegistry {
  /**
   * The holder's name of a valid document (`name: null` when the document has no holder: an answer, not a
   * failure). Throws `RegistryUnavailable` when the registry does not answer (timeout, network error,
   * non-2xx, an answer that is not the registry's).
   */
  lookup(document: string, kind: DocumentKind): Promise<{ name: string | null }>;
}

/** The registry did not answer: the payer is not verified (503 `PayerLookupProviderUnavailableError`). */
export class RegistryUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "RegistryUnavailable";
  }
}
