// The payer page: what a charge's payer opens from any of its messages (`GET /p/{token}` on the Integration
// API's host). The token is the charge's `payer_page_token`: unguessable, and the only key to the page.

/** The payer page's path on the Integration API's host. */
export function payerPagePath(payerPageToken: string): string {
  return `/p/${encodeURIComponent(payerPageToken)}`;
}

/** The payer page's address for a charge, from the Integration API's public URL. */
export function payerPageUrl(integrationPublicUrl: string, payerPageToken: string): string {
  return `${integrationPublicUrl.replace(/\/$/, "")}${payerPagePath(payerPageToken)}`;
}
