// GET /payer-lookup: validate the document, take its units from the day's quota (committed on its own),
// then ask the tax registry. The documented consumption rules follow from that order: a 400 and a 503 answered
// without querying take nothing; a 200 (also with `name: null`) and a 503 because the registry did not
// answer have taken their units.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { classifyDocument, type DocumentKind } from "../tax-id.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { consumeLookupUnits, lookupCost, type LookupQuotaContext } from "./quota.ts";
import { RegistryUnavailable, type TaxRegistry } from "./tax-registry.ts";

export interface PayerLookupResult {
  document: string;
  documentType: DocumentKind;
  name: string | null;
  remainingLookups: number;
}

/** An 11-digit CUIL or CUIT with a known prefix and its check digit, or a 7- or 8-digit DNI; else a 400 naming `document`. */
export function payerDocumentKind(document: string): DocumentKind {
  const kind = classifyDocument(document);
  if (kind !== undefined) return kind;
  if (/^\d{11}$/.test(document)) {
    throw ValidationError.of(
      "document",
      "taxDocument",
      "document must be a CUIL or CUIT with a known prefix (20, 23, 24, 27, 30, 33, 34) and a valid check digit",
    );
  }
  throw ValidationError.of("document", "taxDocument", "document must be an 11-digit CUIL or CUIT or a 7- or 8-digit DNI");
}

/**
 * `registry` undefined: no registry is configured (production without COBRO_TAX_REGISTRY_URL); the lookup
 * answers 503 without querying, so nothing is consumed.
 */
export async function lookUpPayer(
  db: Kysely<Database>,
  registry: TaxRegistry | undefined,
  context: LookupQuotaContext,
  document: string,
): Promise<PayerLookupResult> {
  const kind = payerDocumentKind(document);
  if (registry === undefined) throw providerUnavailable(new Error("no tax registry is configured (COBRO_TAX_REGISTRY_URL)"), false);
  const { remaining } = await consumeLookupUnits(db, context, lookupCost(kind));
  let name: string | null;
  try {
    ({ name } = await registry.lookup(document, kind));
  } catch (error) {
    if (error instanceof RegistryUnavailable) throw providerUnavailable(error, true);
    throw error;
  }
  return { document, documentType: kind, name, remainingLookups: remaining };
}

function providerUnavailable(cause: Error, consumed: boolean): DomainError {
  const error = new DomainError(
    "PayerLookupProviderUnavailableError",
    consumed
      ? "The tax registry did not answer; the payer is not verified. The lookup was counted against the daily quota"
      : "The tax registry is not available; the payer is not verified. Nothing was counted against the daily quota",
  );
  error.cause = cause;
  return error;
}
