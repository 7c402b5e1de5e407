// What `npm start` prints once it is up: the APIs' addresses and, on the first start of an empty Sandbox,
// the credentials of the set it created.
import type { SandboxCredentials } from "../domain/sandbox/sandbox-bootstrap.ts";

/**
 * An API as the start-up lines show it: its public URL (http://localhost:<port> by default), not the
 * address it listens on (127.0.0.1 by default). The public URL is the one sandbox.json, the emails' links
 * and the tokens' issuer use, and the portal keeps its session per origin (sessionStorage): a browser on
 * another host name than the links lead to is signed out there. When the public URL is not this machine at
 * the listener's port (behind a proxy), the listener follows it.
 */
export function shownUrl(publicUrl: string, listening: string): string {
  const shown = new URL(publicUrl);
  const local = ["localhost", "127.0.0.1", "[::1]", new URL(listening).hostname].includes(shown.hostname);
  return local && shown.port === new URL(listening).port ? publicUrl : `${publicUrl} (listening on ${listening})`;
}

/**
 * Which merchant account is which. The printed one is an ordinary account, linked through the authorization
 * screen and able to authorize any integration; test tokens act for the integration's own test merchant, an
 * account bound to that one integration whose password nobody is told.
 */
const MERCHANT_ACCOUNTS_NOTE = [
  "                      signs in on the authorization screen (OAuth); POST /my-integration/test-tokens",
  "                      gives tokens of another account instead, the integration's own test merchant",
];

export function describeCredentials(credentials: SandboxCredentials): string[] {
  return [
    `  platform admin      ${credentials.platformAdmin.email} / ${credentials.platformAdmin.password}`,
    `  integration         ${credentials.integration.name}: clientId ${credentials.integration.clientId}, clientSecret ${credentials.integration.clientSecret}`,
    `                      redirect URI ${credentials.integration.redirectUri}`,
    `  integration admin   ${credentials.integrationAdmin.email} / ${credentials.integrationAdmin.password}`,
    `  merchant            ${credentials.merchant.email} / ${credentials.merchant.password} (merchantUserId ${credentials.merchant.merchantUserId})`,
    ...MERCHANT_ACCOUNTS_NOTE,
  ];
}
