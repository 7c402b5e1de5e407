// The integrations' uploaded logos, public on the host of the authorization screen that shows them.
import { integrationLogoById } from "../../domain/integration-clients/integration-logos.ts";
import type { Handler } from "./handler.ts";

/** Where uploaded logos are served: `{auth_url}/integration/oauth2/logos/{logoId}`. */
export function integrationLogosBaseUrl(publicAuthUrl: string): string {
  return `${publicAuthUrl}/integration/oauth2/logos`;
}

/** The image at a logo's address never changes (an upload gets a new address), so caches may keep it. */
const LOGO_CACHE_CONTROL = "public, max-age=31536000, immutable";

export const getIntegrationLogo: Handler<"getIntegrationLogo", 304> = async ({ params, headers, services }) => {
  const logo = await integrationLogoById(services.db, params.logoId);
  const cacheHeaders = { ETag: logo.etag, "Cache-Control": LOGO_CACHE_CONTROL };
  const known = String(headers["if-none-match"] ?? "")
    .split(",")
    .map((tag) => tag.trim());
  if (known.includes(logo.etag) || known.includes("*")) return { status: 304, headers: cacheHeaders };
  // The contract types a binary body as a string; the runtime sends the bytes as they are.
  return { status: 200, body: logo.content as unknown as string, headers: { ...cacheHeaders, "Content-Type": logo.mediaType } };
};
