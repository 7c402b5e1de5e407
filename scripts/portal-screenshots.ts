// `npm run portal:screenshots`: PNGs of the portal's main pages, at a desktop's width and a phone's
// (375 px), in docs/portal/. It starts a Sandbox in-process on an embedded PostgreSQL in a temporary
// folder (removed at the end), gives it something to show (charges, a payment, a commission proposal, a
// chat-cap request), signs in as each admin in Debian's chromium and photographs each page.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { addDays, argentinaDate } from "../domain/argentina-time.ts";
import { loadConfig, type Config } from "../runtime/config.ts";
import { createLogger } from "../runtime/logger.ts";
import { startService } from "../server/service.ts";
import { CHROMIUM_PATH, launchBrowser } from "./chromium.ts";

const OUTPUT = fileURLToPath(new URL("../docs/portal/", import.meta.url));

const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 375, height: 740 },
] as const;

/** Each admin's pages: the file's name, the path under /portal and the page's heading. */
const PAGES = {
  integrationAdmin: [
    ["dashboard", "/", "Inicio"],
    ["charges", "/charges", "Cobros"],
    ["sandbox", "/sandbox", "Herramientas del Sandbox"],
    ["merchants", "/merchants", "Comercios"],
    ["earnings", "/earnings", "Ganancias"],
  ],
  platformAdmin: [
    ["platform-clients", "/clients", "Integraciones"],
    ["platform-message-cap-requests", "/message-cap-requests", "Pedidos de mensajes"],
  ],
} as const;

async function call(url: string, init: { method?: string; token?: string; body?: unknown }): Promise<any> {
  const response = await fetch(url, {
    method: init.method ?? "POST",
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.body === undefined ? {} : { "content-type": "application/json" }) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method ?? "POST"} ${url}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function signIn(page: Page, credentials: { email: string; password: string }): Promise<void> {
  await page.getByLabel("Email").fill(credentials.email);
  await page.getByLabel("Contraseña", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Ingresar" }).click();
  await page.getByRole("button", { name: "Salir" }).waitFor();
}

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM_PATH)) {
    console.error(`portal:screenshots needs Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH).`);
    process.exit(1);
  }
  const dataDir = mkdtempSync(join(tmpdir(), "cobro-screenshots-"));
  const base = loadConfig({ INTEGRATION_PORT: "0", AUTH_PORT: "0", ADMIN_PORT: "0", COBRO_METRICS_PORT: "0", COBRO_AUTH_URL: "", COBRO_DATA_DIR: dataDir }, []);
  const config: Config = { ...base, databaseUrl: undefined, parts: new Set(["integration", "auth", "admin"]) };
  const service = await startService(config, { logger: createLogger("error"), bootstrapSandbox: true });
  const browser = await launchBrowser();
  try {
    const credentials = service.sandboxCredentials;
    if (!credentials) throw new Error("the Sandbox started without its credentials");
    const admin = `${service.urls.admin}`;
    const integration = `${service.urls.integration}`;

    // Something to show: three charges, one of them paid; a commission proposal; a chat-cap request.
    const login = await call(`${service.urls.auth}/integration/admin/login`, { body: credentials.integrationAdmin });
    const adminToken: string = login.idToken;
    const merchantToken: string = (await call(`${admin}/my-integration/test-tokens`, { token: adminToken })).idToken;
    const today = argentinaDate(new Date());
    const charges = [];
    for (const [index, [name, amount]] of (
      [
        ["María González", 15000],
        ["Juan Pérez", 8250.5],
        ["Lucía Fernández", 23400],
      ] as const
    ).entries()) {
      charges.push(
        await call(`${integration}/payment-request`, {
          token: merchantToken,
          body: {
            referenceId: `CUOTA-2026-11-${index + 1}`,
            description: "Cuota de noviembre",
            amount,
            dueDates: [addDays(today, 10 + index)],
            customer: { name },
            sendWhatsappNotification: false,
            sendEmailNotification: false,
          },
        }),
      );
    }
    await call(`${admin}/my-integration/simulate-payment`, {
      token: adminToken,
      body: {
        cvu: charges[0].CVU,
        amount: 15000,
        externalAccountCvu: "0000003100000000000017",
        externalAccountCuil: "20301234563",
        externalAccountName: "María González",
      },
    });
    const users = await call(`${admin}/my-integration/users`, { method: "GET", token: adminToken });
    await call(`${admin}/my-integration/users/${users.items[0].integrationClientUserId}/commission-proposals`, {
      token: adminToken,
      body: { percentage: 2.5 },
    });
    await call(`${admin}/my-integration/message-cap-requests`, {
      token: adminToken,
      body: { requestedPerDay: 500, reason: "Avisos por WhatsApp en época de cuotas." },
    });

    mkdirSync(OUTPUT, { recursive: true });
    for (const viewport of VIEWPORTS) {
      for (const [role, pages] of Object.entries(PAGES) as Array<[keyof typeof PAGES, (typeof PAGES)[keyof typeof PAGES]]>) {
        const page = await browser.context.newPage();
        page.setDefaultTimeout(15_000);
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
        await page.goto(`${admin}/portal${pages[0][1]}`);
        await signIn(page, credentials[role]);
        for (const [name, path, heading] of pages) {
          await page.goto(`${admin}/portal${path}`);
          await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
          await page.locator(".loading").first().waitFor({ state: "detached" });
          const file = join(OUTPUT, `${name}-${viewport.name}.png`);
          await page.screenshot({ path: file, fullPage: true });
          console.log(`wrote ${file}`);
        }
        await page.close();
      }
    }
  } finally {
    await browser.close();
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
