/**
 * Saves text as a file. A CSV comes through the SDK (it needs the Bearer token, which a plain link
 * cannot carry) and is handed to the browser as a blob: URL on a download link; a download is not a
 * navigation, so the page's CSP needs nothing more.
 */
export function saveFile(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The file name a `Content-Disposition: attachment; filename="…"` answer gives, if any. */
export function attachmentName(contentDisposition: string | null): string | undefined {
  return contentDisposition?.match(/filename="([^"]+)"/)?.[1];
}
