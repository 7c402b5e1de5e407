// The pages Cobro serves to people (the sign-in screen, the payer page): Spanish, made for a phone, every
// style and script inline (the pages' Content-Security-Policy allows nothing from elsewhere).
import { escapeHtml } from "../../domain/html.ts";

export interface HtmlDocument {
  /** Plain text: escaped here. */
  title: string;
  style: string;
  /** Markup of the page's body, inside `<main>`; already escaped by the caller. */
  main: string;
  /** An inline script run at the end of the body. */
  script?: string;
  /** Put on the inline style and script, for a CSP that allows only this response's nonce. */
  nonce?: string;
  /** Asks search engines not to index the page. */
  noindex?: boolean;
}

export function htmlDocument(page: HtmlDocument): string {
  const nonce = page.nonce ? ` nonce="${escapeHtml(page.nonce)}"` : "";
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${page.noindex ? '<meta name="robots" content="noindex">\n' : ""}<title>${escapeHtml(page.title)}</title>
<style${nonce}>${page.style}</style>
</head>
<body>
<main>
${page.main}
</main>
${page.script ? `<script${nonce}>${page.script}</script>\n` : ""}</body>
</html>
`;
}
