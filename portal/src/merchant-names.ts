// The integration's merchant accounts by name, for the pages that list money by merchant account (unmatched
// payments, the daily statement): its name where the API gives only its userId, and the merchant filter.
import { adminApi } from "./api.ts";
import { type Resource, useResource } from "./components/use-resource.ts";

export type MerchantNames = Map<string, string>;

/** A merchant account's name, the start of its userId when it is not among the integration's, `—` for none. */
export function merchantName(merchants: MerchantNames, merchantUserId: string | null): string {
  if (merchantUserId === null) return "—";
  return merchants.get(merchantUserId) ?? merchantUserId.slice(0, 8);
}

/** The integration's merchant accounts by their userId: "Nombre de fantasía (email)" or the email. */
export function useMerchants(): Resource<MerchantNames> {
  return useResource(async () => {
    const page = await adminApi.merchants.listIntegrationUsers({ limit: 100 });
    return new Map(page.items.map((user) => [user.userId, user.fantasyName ? `${user.fantasyName} (${user.email})` : user.email]));
  }, []);
}

/** The options of a merchant filter: all of them (`allLabel`), then each merchant account once they are loaded. */
export function merchantOptions(merchants: Resource<MerchantNames>, allLabel: string): { value: string; label: string }[] {
  return [{ value: "", label: allLabel }, ...(merchants.status === "ready" ? [...merchants.data].map(([value, label]) => ({ value, label })) : [])];
}
