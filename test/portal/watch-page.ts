// What a portal page did (every request it made, every console error or uncaught exception), the menu a
// page is expected to show, and a new tab signed in on a page.
import type { Page } from "playwright-core";
import type { TestBrowser } from "../../scripts/chromium.ts";

export interface WatchedPage {
  /** The URLs asked of any origin other than the portal's. */
  otherOrigins(): string[];
  /**
   * The console errors and page errors, except the failed loads Chromium logs for refused requests (a
   * wrong password, a form the API refuses): exactly `expectedFailures` of those are expected.
   */
  problems(options: { expectedFailures: number }): string[];
}

export function watchPage(page: Page, portalOrigin: string): WatchedPage {
  const origin = new URL(portalOrigin).origin;
  const urls: string[] = [];
  const failedLoads: string[] = [];
  const problems: string[] = [];
  page.on("request", (request) => urls.push(request.url()));
  page.on("console", (message) => {
    if (message.type() !== "error" && message.type() !== "warning") return;
    const line = `console ${message.type()}: ${message.text()} (${message.location().url})`;
    if (/^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) failedLoads.push(line);
    else problems.push(line);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  return {
    otherOrigins: () => urls.filter((url) => new URL(url).origin !== origin),
    problems: ({ expectedFailures }) => (failedLoads.length === expectedFailures ? [...problems] : [...problems, ...failedLoads]),
  };
}

/** The integration admin's menu, in order, for an integration that is not multitenant. */
export const INTEGRATION_ADMIN_MENU = [
  "Inicio",
  "Cobros",
  "Pagos sin imputar",
  "Resumen diario",
  "Sandbox",
  "Salida a producción",
  "Comercios",
  "Oferta",
  "Cobro de comisiones",
  "Ganancias",
  "Mensajes de chat",
  "Webhooks",
  "Eventos",
  "Claves del widget",
  "Perfil y logo",
  "Auditoría",
];

/**
 * A new tab of `browser` on the portal's `path`, signed in with `credentials` (the sign-in form shows on
 * any page of a signed-out tab), watched from its first request; `width` makes it a phone's screen.
 */
export async function openSignedIn(
  browser: TestBrowser,
  adminUrl: string,
  credentials: { email: string; password: string },
  options: { path?: string; width?: number } = {},
): Promise<{ page: Page; watched: WatchedPage }> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  if (options.width) await page.setViewportSize({ width: options.width, height: 667 });
  const watched = watchPage(page, adminUrl);
  await page.goto(`${adminUrl}/portal${options.path ?? "/"}`);
  await page.getByLabel("Email").fill(credentials.email);
  await page.getByLabel("Contraseña", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Ingresar" }).click();
  return { page, watched };
}
