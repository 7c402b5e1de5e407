// Every Integration API operation but the health probes is reached only with a merchant caller (the
// security handler refused the rest); this narrows the type, and fails loudly if that ever changes.
import type { IntegrationCaller, MerchantCaller } from "../../domain/sign-in/callers.ts";

export function requireMerchant(caller: IntegrationCaller): MerchantCaller {
  if (caller.kind !== "merchant") throw new Error("an Integration API operation ran without a merchant caller");
  return caller;
}
