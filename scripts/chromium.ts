// A real browser for page tests: Debian's chromium (`/usr/bin/chromium`, installed by .ci/run with apt-get)
// driven by playwright-core, headless, with Chromium's own background traffic off (the machine's network is
// closed except loopback) and a fresh profile that is removed on close. One browser per test file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface TestBrowser {
  /** The persistent context over the temporary profile: `newPage()` opens a tab. */
  context: BrowserContext;
  close(): Promise<void>;
}

export interface TestBrowserOptions {
  viewport?: { width: number; height: number };
  locale?: string;
}

export async function launchBrowser(options: TestBrowserOptions = {}): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), "cobro-chromium-"));
  let context: BrowserContext;
  try {
    // launchPersistentContext passes our user-data-dir to Chromium (plain launch() would make its own).
    // playwright-core adds --headless and --no-sandbox itself too; repeating a switch is harmless.
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: FLAGS,
      locale: options.locale ?? "es-AR",
      viewport: options.viewport ?? { width: 1280, height: 800 },
      timeout: 30_000,
    });
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    context,
    close: () =>
      (closing ??= (async () => {
        try {
          await context.close();
        } finally {
          rmSync(userDataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
        }
      })()),
  };
}
