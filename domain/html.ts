// Text put into HTML that Cobro writes (the emails to payers, the payer page, the sign-in screen, the API
// reference pages): every interpolated value is escaped here, so it reads as text and never as markup.

/** `&`, `<`, `>`, `"` and `'` as character references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
