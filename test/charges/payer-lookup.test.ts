// GET /payer-lookup over real HTTP: the Sandbox registry's documented documents, validation, the daily
// quota (units, cap, reset at 00:00 Argentina time, consumption rules, parallel requests at the cap, a
// counter that cannot be read), and the production HTTP registry adapter against a real loopback server.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { sql } from "kysely";
import { linkedMerchant, read, serviceForFile, startTestService, type TestService, untilMerchantTokenRefused } from "../helpers/service.ts";
import { exchangeCode, obtainCode } from "../helpers/oauth.ts";
import { cuilCheckDigit } from "../../domain/tax-id.ts";
import { argentinaDate } from "../../domain/argentina-time.ts";
import { HttpTaxRegistry } from "../../domain/payer-lookup/http-registry.ts";
import { RegistryUnavailable } from "../../domain/payer-lookup/tax-registry.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") }); // 12:00 in Argentina

type Merchant = Awaited<ReturnType<typeof linkedMerchant>> & { integrationClientId: string; merchantAccountId: string };

async function merchant(): Promise<Merchant> {
  const m = await linkedMerchant(t);
  const me = await m.call("GET", "/me");
  const integration = await t.database.db
    .selectFrom("integration_clients")
    .select("id")
    .where("provider_client_id", "=", m.sandbox.integration.clientId)
    .executeTakeFirstOrThrow();
  return Object.assign(m, { integrationClientId: integration.id, merchantAccountId: me.json.merchantUserId as string });
}

const today = () => argentinaDate(t.clock.now());
const lookup = (m: Merchant, document: string) => m.call("GET", `/payer-lookup?document=${encodeURIComponent(document)}`);

async function usedUnits(m: Merchant, day = today()): Promise<number> {
  const row = await t.database.db
    .selectFrom("payer_lookup_usage")
    .select("units")
    .where("integration_client_id", "=", m.integrationClientId)
    .where("merchant_account_id", "=", m.merchantAccountId)
    .where("day", "=", day)
    .executeTakeFirst();
  return row?.units ?? 0;
}

async function setUsedUnits(m: Merchant, units: number, day = today()): Promise<void> {
  await t.database.db
    .insertInto("payer_lookup_usage")
    .values({ integration_client_id: m.integrationClientId, merchant_account_id: m.merchantAccountId, day, units })
    .onConflict((oc) => oc.columns(["integration_client_id", "merchant_account_id", "day"]).doUpdateSet({ units }))
    .execute();
}

/** A valid CUIL or CUIT of a prefix and an 8-digit middle part. */
function cuil(prefix: string, dni: string): string {
  const digit = cuilCheckDigit(`${prefix}${dni}`);
  if (digit === undefined) throw new Error(`${prefix}-${dni} has no check digit`);
  return `${prefix}${dni}${digit}`;
}

const nextMidnightSeconds = (day: string) => Date.parse(`${day}T00:00:00-03:00`) / 1000 + 24 * 3600;
const limitBody = (day: string) => ({
  code: "PayerLookupDailyLimitExceededError",
  message: expect.any(String),
  availableAtUnixSeconds: nextMidnightSeconds(day),
  maxLookupsPerDay: 1000,
});

describe("the Sandbox registry (the contract's documented documents)", () => {
  let m: Merchant;
  beforeAll(async () => {
    m = await merchant();
  });

  it.each([
    ["20301234563", "cuil", "Juan Pérez", 999],
    ["30123456", "dni", "Juan Pérez", 997],
    ["20123456786", "cuil", "María Gómez", 996],
    ["20991234560", "cuil", null, 995],
    [cuil("27", "99000001"), "cuil", null, 994],
  ])("%s (%s) resolves to %s", async (document, documentType, name, remainingLookups) => {
    const result = await lookup(m, document);
    expect(result.status, result.text).toBe(200);
    expect(result.json).toEqual({ document, documentType, name, remainingLookups });
  });

  it("20000000001 makes the registry fail: 503 PayerLookupProviderUnavailableError {code, message}, and the lookup is consumed", async () => {
    const before = await usedUnits(m);
    const result = await lookup(m, "20000000001");
    expect(result.status).toBe(503);
    expect(result.json).toEqual({ code: "PayerLookupProviderUnavailableError", message: expect.any(String) });
    expect(await usedUnits(m)).toBe(before + 1);
  });

  it("any other valid document resolves to a generated name, the same every time; a DNI and its CUIL name the same person", async () => {
    const person = cuil("27", "23456789");
    const first = await lookup(m, person);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ document: person, documentType: "cuil", name: expect.stringMatching(/^\S+ \S+$/) });
    expect((await lookup(m, person)).json.name).toBe(first.json.name);
    expect((await lookup(m, "23456789")).json).toMatchObject({ documentType: "dni", name: first.json.name });

    const company = cuil("30", "71234567");
    const firm = await lookup(m, company);
    expect(firm.json).toMatchObject({ document: company, documentType: "cuit", name: expect.stringMatching(/S\.(A|R\.L)\.$/) });

    const sevenDigits = await lookup(m, "1234567");
    expect(sevenDigits.json).toMatchObject({ document: "1234567", documentType: "dni", name: expect.any(String) });
    expect(sevenDigits.json.name).not.toBeNull();
  });
});

describe("validation: 400 ValidationError (field document), nothing consumed", () => {
  let m: Merchant;
  beforeAll(async () => {
    m = await merchant();
  });

  it.each([
    ["a wrong check digit", "20301234564"],
    ["an unknown prefix with a valid check digit", "10301234568"],
    ["6 digits", "123456"],
    ["9 digits", "123456789"],
    ["10 digits", "2030123456"],
    ["12 digits", "203012345630"],
    ["letters", "2030123456A"],
    ["hyphens", "20-30123456-3"],
    ["an empty value", ""],
  ])("%s", async (_what, document) => {
    const result = await lookup(m, document);
    expect(result.status, result.text).toBe(400);
    expect(result.json).toEqual({
      code: "ValidationError",
      message: expect.any(String),
      id: expect.any(String),
      validationDetails: [{ field: "document", rule: expect.stringMatching(/^(taxDocument|pattern|minLength)$/), message: expect.any(String) }],
    });
    expect(await usedUnits(m)).toBe(0);
  });

  it("a missing document", async () => {
    const result = await m.call("GET", "/payer-lookup");
    expect(result.status).toBe(400);
    expect(result.json.code).toBe("ValidationError");
    expect(result.json.validationDetails[0].field).toBe("document");
    expect(await usedUnits(m)).toBe(0);
  });

  it("401 without a token and 403 (plain text) for an unlinked merchant account: the seed's 404 'account not linked' is answered by the token check", async () => {
    const m = await merchant();
    expect((await read(await fetch(`${t.integrationUrl}/payer-lookup?document=20301234563`))).status).toBe(401);
    await t.database.db
      .updateTable("merchant_links")
      .set({ unlinked_at: t.clock.now() })
      .where("integration_client_id", "=", m.integrationClientId)
      .where("merchant_account_id", "=", m.merchantAccountId)
      .execute();
    await untilMerchantTokenRefused(m.call);
    const result = await lookup(m, "20301234563");
    expect(result.status).toBe(403);
    expect(result.text).toBe("Not authorized as user of integration client");
    expect(await usedUnits(m)).toBe(0);
  });
});

describe("the daily quota: 1000 units per integration and merchant account", () => {
  it("a CUIL or CUIT costs 1 unit, a DNI 2", async () => {
    const m = await merchant();
    expect((await lookup(m, "20301234563")).json.remainingLookups).toBe(999);
    expect((await lookup(m, cuil("30", "71234567"))).json.remainingLookups).toBe(998);
    expect((await lookup(m, "30123456")).json.remainingLookups).toBe(996);
    expect((await lookup(m, "1234567")).json.remainingLookups).toBe(994);
    expect(await usedUnits(m)).toBe(6);
  });

  it("reaches exactly 1000, then 429 PayerLookupDailyLimitExceededError with the next 00:00 Argentina time; nothing consumed", async () => {
    const m = await merchant();
    await setUsedUnits(m, 998);
    expect((await lookup(m, "20301234563")).json.remainingLookups).toBe(1);
    expect((await lookup(m, "20301234563")).json.remainingLookups).toBe(0);
    const refused = await lookup(m, "20301234563");
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual(limitBody(today()));
    expect(refused.json.availableAtUnixSeconds).toBe(Date.parse("2026-11-23T03:00:00Z") / 1000);
    expect((await lookup(m, "30123456")).status).toBe(429);
    expect((await lookup(m, "20000000001")).status).toBe(429); // refused before the registry: no provider 503
    expect(await usedUnits(m)).toBe(1000);
  });

  it("a DNI (2 units) does not fit in the last unit, a CUIL does", async () => {
    const m = await merchant();
    await setUsedUnits(m, 999);
    const dni = await lookup(m, "30123456");
    expect(dni.status).toBe(429);
    expect(dni.json).toEqual(limitBody(today()));
    expect(await usedUnits(m)).toBe(999);
    const cuilLookup = await lookup(m, "20301234563");
    expect(cuilLookup.status).toBe(200);
    expect(cuilLookup.json.remainingLookups).toBe(0);
  });

  it("counts per integration and merchant account: another's exhausted quota does not touch this one", async () => {
    const full = await merchant();
    const other = await merchant();
    await setUsedUnits(full, 1000);
    expect((await lookup(full, "20301234563")).status).toBe(429);
    expect((await lookup(other, "20301234563")).json.remainingLookups).toBe(999);
  });

  it("consumption: a 200 with name null and a provider 503 are consumed; a 400 and a 429 are not", async () => {
    const m = await merchant();
    expect((await lookup(m, "20991234560")).json).toMatchObject({ name: null, remainingLookups: 999 });
    expect(await usedUnits(m)).toBe(1);
    expect((await lookup(m, "20000000001")).status).toBe(503);
    expect(await usedUnits(m)).toBe(2);
    expect((await lookup(m, "20301234564")).status).toBe(400);
    expect(await usedUnits(m)).toBe(2);
    await setUsedUnits(m, 1000);
    expect((await lookup(m, "20301234563")).status).toBe(429);
    expect(await usedUnits(m)).toBe(1000);
  });
});

describe("concurrency at the cap", () => {
  it("20 parallel CUIL lookups with 10 units left: exactly 10 answer 200, 10 answer 429, the counter stops at 1000", async () => {
    const m = await merchant();
    await setUsedUnits(m, 990);
    const results = await Promise.all(Array.from({ length: 20 }, () => lookup(m, "20301234563")));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(10);
    expect(refused).toHaveLength(10);
    expect(ok.map((r) => r.json.remainingLookups).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const r of refused) expect(r.json).toEqual(limitBody(today()));
    expect(await usedUnits(m)).toBe(1000);
  });

  it("20 parallel lookups from zero for a fresh account (the first insert races too) and 20 parallel DNI lookups with 5 units left", async () => {
    const fresh = await merchant();
    const first = await Promise.all(Array.from({ length: 20 }, () => lookup(fresh, "30123456")));
    expect(first.every((r) => r.status === 200)).toBe(true);
    expect(first.map((r) => r.json.remainingLookups).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 960 + 2 * i));
    expect(await usedUnits(fresh)).toBe(40);

    const m = await merchant();
    await setUsedUnits(m, 995);
    const results = await Promise.all(Array.from({ length: 20 }, () => lookup(m, "30123456")));
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    expect(results.filter((r) => r.status === 429)).toHaveLength(18);
    expect(await usedUnits(m)).toBe(999);
  });

  it("503 PayerLookupQuotaUnavailableError {code, message} while another connection holds the counter row; nothing consumed", async () => {
    const m = await merchant();
    await setUsedUnits(m, 10);
    const client = new pg.Client({ connectionString: t.database.connectionString });
    await client.connect();
    try {
      await client.query("begin");
      await client.query("select units from payer_lookup_usage where integration_client_id = $1 and merchant_account_id = $2 for update", [
        m.integrationClientId,
        m.merchantAccountId,
      ]);
      const started = Date.now();
      const result = await lookup(m, "20301234563");
      expect(result.status).toBe(503);
      expect(result.json).toEqual({ code: "PayerLookupQuotaUnavailableError", message: expect.any(String) });
      expect(Date.now() - started).toBeLessThan(5000);
      await client.query("rollback");
    } finally {
      await client.end();
    }
    expect(await usedUnits(m)).toBe(10);
    expect((await lookup(m, "20301234563")).json.remainingLookups).toBe(989);
  });
});

describe("the production registry adapter (HttpTaxRegistry) against a loopback server", () => {
  let server: Server;
  let base: string;
  let hits: Array<{ path: string; accept: string | undefined }> = [];
  let redirectTargetHit = false;
  const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
    "/name": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ name: "Ana Díaz" })),
    "/none": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ name: null })),
    "/error": (_req, res) => res.writeHead(500).end("boom"),
    "/missing": (_req, res) => res.writeHead(404).end(),
    "/redirect": (_req, res) => res.writeHead(302, { location: `${base}/target` }).end(),
    "/target": (_req, res) => {
      redirectTargetHit = true;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ name: "Redirected" }));
    },
    "/slow": (_req, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ name: "Too late" })), 1500).unref();
    },
    "/html": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>maintenance</html>"),
    "/wrong-shape": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ holder: "x" })),
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      hits.push({ path: `${url.pathname}${url.search}`, accept: req.headers.accept });
      (routes[url.pathname] ?? ((_q, r) => r.writeHead(404).end()))(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("asks GET <url>?document=&type= for JSON and reads {name} and {name: null}", async () => {
    hits = [];
    expect(await new HttpTaxRegistry({ url: `${base}/name` }).lookup("20301234563", "cuil")).toEqual({ name: "Ana Díaz" });
    expect(hits).toEqual([{ path: "/name?document=20301234563&type=cuil", accept: "application/json" }]);
    expect(await new HttpTaxRegistry({ url: `${base}/none` }).lookup("30123456", "dni")).toEqual({ name: null });
  });

  it.each(["/error", "/missing", "/html", "/wrong-shape"])("%s: RegistryUnavailable", async (path) => {
    await expect(new HttpTaxRegistry({ url: `${base}${path}` }).lookup("20301234563", "cuil")).rejects.toBeInstanceOf(RegistryUnavailable);
  });

  it("does not follow a redirect", async () => {
    redirectTargetHit = false;
    await expect(new HttpTaxRegistry({ url: `${base}/redirect` }).lookup("20301234563", "cuil")).rejects.toBeInstanceOf(RegistryUnavailable);
    expect(redirectTargetHit).toBe(false);
  });

  it("gives up after its timeout (5 s by default; 300 ms here) and when nothing listens", async () => {
    const started = Date.now();
    await expect(new HttpTaxRegistry({ url: `${base}/slow`, timeoutMs: 300 }).lookup("20301234563", "cuil")).rejects.toThrow(/within 300 ms/);
    expect(Date.now() - started).toBeLessThan(1200);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(new HttpTaxRegistry({ url: `http://127.0.0.1:${port}/` }).lookup("20301234563", "cuil")).rejects.toBeInstanceOf(RegistryUnavailable);
  });

  it("in Production the service uses it (COBRO_TAX_REGISTRY_URL): 200 from the registry, 503 consumed when it fails; without the URL, 503 and nothing consumed", async () => {
    const [configured, unconfigured] = await Promise.all([
      startTestService({ env: { SERVICE_ENV: "production", COBRO_TAX_REGISTRY_URL: `${base}/name` } }),
      startTestService({ env: { SERVICE_ENV: "production" } }),
    ]);
    try {
      const token = async (p: TestService) => {
        const own = await p.sandbox();
        const code = await obtainCode(p.authUrl, own.integration, own.merchant);
        const tokens = await exchangeCode(p.authUrl, own.integration, code);
        expect(tokens.status, tokens.text).toBe(200);
        const integration = await p.database.db
          .selectFrom("integration_clients")
          .select("id")
          .where("provider_client_id", "=", own.integration.clientId)
          .executeTakeFirstOrThrow();
        return { idToken: tokens.json.idToken as string, integrationClientId: integration.id };
      };
      const get = async (p: TestService, idToken: string, document: string) =>
        read(await fetch(`${p.integrationUrl}/payer-lookup?document=${document}`, { headers: { authorization: `Bearer ${idToken}` } }));
      const units = async (p: TestService, integrationClientId: string) =>
        Number(
          (
            await sql<{
              units: number;
            }>`select coalesce(sum(units), 0)::int as units from payer_lookup_usage where integration_client_id = ${integrationClientId}`.execute(p.database.db)
          ).rows[0]!.units,
        );

      const a = await token(configured);
      hits = [];
      const found = await get(configured, a.idToken, "20000000001"); // no Sandbox magic in Production: the registry decides
      expect(found.status, found.text).toBe(200);
      expect(found.json).toEqual({ document: "20000000001", documentType: "cuil", name: "Ana Díaz", remainingLookups: 999 });
      expect(hits).toEqual([{ path: "/name?document=20000000001&type=cuil", accept: "application/json" }]);
      routes["/name"] = (_req, res) => res.writeHead(502).end();
      const failed = await get(configured, a.idToken, "20301234563");
      expect(failed.status).toBe(503);
      expect(failed.json).toEqual({ code: "PayerLookupProviderUnavailableError", message: expect.any(String) });
      expect(await units(configured, a.integrationClientId)).toBe(2);

      const b = await token(unconfigured);
      const none = await get(unconfigured, b.idToken, "20301234563");
      expect(none.status).toBe(503);
      expect(none.json).toEqual({ code: "PayerLookupProviderUnavailableError", message: expect.any(String) });
      expect(await units(unconfigured, b.integrationClientId)).toBe(0);
    } finally {
      await Promise.all([configured.close(), unconfigured.close()]);
    }
  });
});

describe("the day resets at 00:00 Argentina time", () => {
  it("a quota used up at 23:59 is available again at 00:00; the old day's count stays", async () => {
    t.clock.set(new Date("2026-11-23T02:59:00Z")); // 2026-11-22 23:59 in Argentina
    const m = await merchant();
    const day = today();
    expect(day).toBe("2026-11-22");
    await setUsedUnits(m, 1000);
    const refused = await lookup(m, "20301234563");
    expect(refused.status).toBe(429);
    expect(refused.json.availableAtUnixSeconds).toBe(Date.parse("2026-11-23T03:00:00Z") / 1000);

    t.clock.advance(60_000); // 00:00 of 2026-11-23 in Argentina
    await m.renew();
    expect(today()).toBe("2026-11-23");
    const again = await lookup(m, "20301234563");
    expect(again.status).toBe(200);
    expect(again.json.remainingLookups).toBe(999);
    expect(await usedUnits(m, "2026-11-22")).toBe(1000);
    expect(await usedUnits(m, "2026-11-23")).toBe(1);
  });
});
