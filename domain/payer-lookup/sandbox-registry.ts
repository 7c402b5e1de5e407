// The Sandbox tax registry: deterministic, exactly as the contract documents it (spec/integration/payer-lookup.tsp):
// - `20301234563` and DNI `30123456` resolve to `Juan Pérez`; `20123456786` to `María Gómez`;
// - a CUIL whose DNI part starts with `99` has no holder (`name: null`);
// - `20000000001` makes the registry fail (RegistryUnavailable → 503 `PayerLookupProviderUnavailableError`);
// - any other valid document resolves to a generated name: a person's for a CUIL or a DNI (derived from
//   the DNI, so a DNI and the CUIL that contains it name the same person), a company's for a CUIT.
import { createHash } from "node:crypto";
import type { DocumentKind } from "../tax-id.ts";
import { RegistryUnavailable, type TaxRegistry } from "./tax-registry.ts";

const KNOWN: Readonly<Record<string, string>> = {
  "20301234563": "Juan Pérez",
  "30123456": "Juan Pérez",
  "20123456786": "María Gómez",
};
const FAILING = "20000000001";

const FIRST_NAMES = [
  "Lucía",
  "Martín",
  "Sofía",
  "Santiago",
  "Valentina",
  "Mateo",
  "Camila",
  "Joaquín",
  "Florencia",
  "Tomás",
  "Agustina",
  "Nicolás",
  "Julieta",
  "Facundo",
  "Micaela",
  "Federico",
];
const SURNAMES = [
  "González",
  "Rodríguez",
  "Fernández",
  "López",
  "Martínez",
  "García",
  "Romero",
  "Sosa",
  "Álvarez",
  "Torres",
  "Ruiz",
  "Benítez",
  "Acosta",
  "Medina",
  "Herrera",
  "Suárez",
];
const COMPANY_SUFFIXES = ["S.A.", "S.R.L.", "Hermanos S.R.L.", "y Asociados S.A."];

export class SandboxTaxRegistry implements TaxRegistry {
  async lookup(document: string, kind: DocumentKind): Promise<{ name: string | null }> {
    if (document === FAILING) throw new RegistryUnavailable("the Sandbox registry fails for 20000000001 by design");
    const known = KNOWN[document];
    if (known !== undefined) return { name: known };
    if (kind === "cuil" && document.slice(2, 4) === "99") return { name: null };
    return { name: generatedName(document, kind) };
  }
}

/** A stable name for a document: the same on every call, every run and every machine. */
function generatedName(document: string, kind: DocumentKind): string {
  if (kind === "cuit") {
    const [a, b] = digest(document);
    return `${SURNAMES[a! % SURNAMES.length]} ${COMPANY_SUFFIXES[b! % COMPANY_SUFFIXES.length]}`;
  }
  const dni = kind === "dni" ? document.padStart(8, "0") : document.slice(2, 10);
  const [a, b] = digest(`dni:${dni}`);
  return `${FIRST_NAMES[a! % FIRST_NAMES.length]} ${SURNAMES[b! % SURNAMES.length]}`;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
