// Each API serves its published document (/openapi.yaml byte for byte, /openapi.json) and a rendered
// reference at /docs whose every asset comes from the same origin, so the pages work with no outside
// network: checked over HTTP, then in a real browser (Debian's chromium through playwright-core).
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import YAML from "yaml";
import { startTestApi, type TestApi } from "../helpers/api.ts";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import type { ApiName } from "../../runtime/config.ts";

const apis: ApiName[] = ["integration", "auth", "admin"];
const running = {} as Record<ApiName, TestApi>;

beforeAll(async () => {
  for (const api of apis) {
    // No handlers and no security: these routes are outside the contract and answer before openapi-backend.
    running[api] = await startTestApi<never>(api, { handlers: {}, security: {}, anonymous: undefined as never });
  }
});
afterAll(async () => {
  await Promise.all(apis.map((api) => running[api]?.close()));
});

/** The src and href attributes of an HTML page. */
function linksOf(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/gi)].map((match) => match[1]!);
}

describe.each(apis)("%s API", (api) => {
  const generated = readFileSync(`generated/openapi/${api}.yaml`, "utf8");

  it("serves the generated document at /openapi.yaml, byte for byte", async () => {
    const response = await fetch(`${running[api].url}/openapi.yaml`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/yaml/);
    expect(await response.text()).toBe(generated);
  });

  it("serves the same document as JSON at /openapi.json", async () => {
    const response = await fetch(`${running[api].url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual(YAML.parse(generated));
  });

  it("serves /docs as HTML whose scripts, styles and document all come from the same origin", async () => {
    const page = `${running[api].url}/docs`;
    const response = await fetch(page);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    const html = await response.text();
    expect(html).toContain(YAML.parse(generated).info.title);

    const links = linksOf(html);
    expect(links.length).toBeGreaterThanOrEqual(4);
    for (const link of links) {
      expect(link, "relative link").not.toMatch(/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i);
      const url = new URL(link, page);
      expect(url.origin).toBe(new URL(page).origin);
      const asset = await fetch(url);
      expect(asset.status, url.pathname).toBe(200);
      const body = await asset.text();
      expect(body.length, url.pathname).toBeGreaterThan(0);
    }

    // The initializer points Swagger UI at this API's own document and turns the outside validator off.
    const init = await (await fetch(new URL("docs/init.js", page))).text();
    expect(init).not.toMatch(/https?:\/\//);
    expect(init).toContain('url: "openapi.json"');
    expect(init).toContain("validatorUrl: null");
  });

  it("serves only the renderer's own files, not swagger-ui-dist's example page", async () => {
    for (const file of ["index.html", "swagger-initializer.js", "package.json", "..%2Fpackage.json"]) {
      const response = await fetch(`${running[api].url}/docs/assets/${file}`);
      expect(response.status, file).toBe(404);
    }
  });

  it("answers GET / for a JSON client with an index: the API's name and version, and links to its document and reference pages", async () => {
    const response = await fetch(`${running[api].url}/`, { headers: { accept: "application/json" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const index = (await response.json()) as { name: string; version: string; links: Record<string, string> };
    const info = YAML.parse(generated).info;
    expect(index).toEqual({
      name: info.title,
      version: info.version,
      links: { openapi: expect.any(String), openapiJson: expect.any(String), docs: expect.any(String) },
    });
    // Absolute links on the API's public address; each answers what it names.
    const expectedPaths = { openapi: "/openapi.yaml", openapiJson: "/openapi.json", docs: "/docs" };
    for (const [name, link] of Object.entries(index.links)) {
      const url = new URL(link);
      expect(url.pathname, name).toBe(expectedPaths[name as keyof typeof expectedPaths]);
      expect((await fetch(`${running[api].url}${url.pathname}`)).status, link).toBe(200);
    }
  });

  it("sends /docs/ to /docs, where the relative links resolve", async () => {
    const response = await fetch(`${running[api].url}/docs/`, { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(new URL(response.headers.get("location")!, `${running[api].url}/docs/`).pathname).toBe("/docs");
  });
});

it("declares the Admin API's version 1.0.0 in the document it serves", async () => {
  const document = (await (await fetch(`${running.admin.url}/openapi.json`)).json()) as { info: { version: string } };
  expect(document.info.version).toBe("1.0.0");
  expect(YAML.parse(await (await fetch(`${running.admin.url}/openapi.yaml`)).text()).info.version).toBe("1.0.0");
});

it("answers the Integration API's reference under its /integration prefix too", async () => {
  const page = `${running.integration.url}/integration/docs`;
  const html = await (await fetch(page)).text();
  for (const link of linksOf(html)) {
    const url = new URL(link, page);
    expect(url.pathname.startsWith("/integration/")).toBe(true);
    expect((await fetch(url)).status, url.pathname).toBe(200);
  }
  expect(await (await fetch(`${running.integration.url}/integration/openapi.yaml`)).text()).toBe(readFileSync("generated/openapi/integration.yaml", "utf8"));
});

describe("in a real browser", () => {
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser({ locale: "en-US" });
  });
  afterAll(() => browser?.close());

  it.each(apis)(
    "renders every operation of the %s API from same-origin requests only, with no console errors",
    async (api) => {
      const origin = new URL(running[api].url).origin;
      const page = await browser.context.newPage();
      const elsewhere: string[] = [];
      const problems: string[] = [];
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (new URL(url).origin === origin) return route.continue();
        elsewhere.push(url);
        return route.abort();
      });
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      try {
        await page.goto(`${running[api].url}/docs`);
        await page.locator(".opblock").first().waitFor({ timeout: 20_000 });
        const document = YAML.parse(readFileSync(`generated/openapi/${api}.yaml`, "utf8")) as { paths: Record<string, Record<string, unknown>> };
        const operations = Object.values(document.paths).flatMap((item) =>
          Object.keys(item).filter((key) => ["get", "put", "post", "patch", "delete"].includes(key)),
        );
        expect(await page.locator(".opblock").count()).toBe(operations.length);
        expect(await page.locator(".info .title").innerText()).toContain(YAML.parse(readFileSync(`generated/openapi/${api}.yaml`, "utf8")).info.title);
        expect(elsewhere).toEqual([]);
        expect(problems).toEqual([]);
      } finally {
        await page.close();
      }
    },
    60_000,
  );
});
