// generated/postman/cobro.postman_collection.json as an integrator uses it: imported by a collection runner
// (Newman, Postman's own, through its Node API) and run against the whole service on a fresh database. The
// "Sandbox walkthrough" folder goes from signing in to a paid charge read back with every `pm.test` green,
// twice (once with a webhook receiver, once without, whose steps it skips); the collection's pre-request
// script signs in by itself for a request that needs a token. And the collection covers the contract: one
// folder per API, a request for every operation of the three documents.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import newman, { type NewmanRunSummary } from "newman";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_NAMES, type ApiName } from "../../scripts/normalize-openapi.ts";
import { COLLECTION_PATH } from "../../scripts/generate-collection.ts";
import { generatedDocument } from "../helpers/openapi-documents.ts";
import { registeredUrlsOf } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

type Item = { name: string; item?: Item[]; request?: { method: string; url: { host: string[]; path: string[] } } };
type Collection = { item: Item[]; event: unknown[]; variable: unknown[]; info: unknown; auth: unknown };

const collection = JSON.parse(readFileSync(join(resolve(import.meta.dirname, "../../generated"), COLLECTION_PATH), "utf8")) as Collection;
const folder = (name: string) => collection.item.find((item) => item.name === name)!;
const requestsOf = (item: Item): Item[] => (item.item ? item.item.flatMap(requestsOf) : [item]);

const BANK_FEED_SECRET = "bank-feed-secret-for-tests-0123456789";
const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true", COBRO_BANK_FEED_SECRET: BANK_FEED_SECRET }, parts: ["integration", "auth", "admin"] });
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver.close());

/**
 * Runs `collection` (or its `folder`) with Newman; the variables stand where an integrator's environment
 * would. `sent` is every request that went out, the scripts' own included: `METHOD /path status`.
 */
function run(options: { collection: Collection; folder?: string; envVar: Record<string, string>; iterationData?: Array<Record<string, string>> }) {
  const sent: string[] = [];
  return new Promise<{ summary: NewmanRunSummary; sent: string[] }>((done, fail) => {
    newman
      .run(
        {
          collection: options.collection as never,
          ...(options.folder ? { folder: options.folder } : {}),
          envVar: Object.entries(options.envVar).map(([key, value]) => ({ key, value })),
          ...(options.iterationData ? { iterationData: options.iterationData, iterationCount: options.iterationData.length } : {}),
          reporters: [],
        },
        (error, summary) => (error ? fail(error) : done({ summary, sent })),
      )
      .on("request", (_error: Error | null, args: { request: { method: string; url: { getPath(): string } }; response?: { code: number } }) => {
        sent.push(`${args.request.method} ${args.request.url.getPath()} ${args.response?.code}`);
      });
  });
}

/** Each failed `pm.test` or request, one line each: what a failing run says. */
function failuresOf(summary: NewmanRunSummary): string[] {
  return summary.run.failures.map((failure) => `${failure.source?.name ?? "?"}: ${failure.error.test ?? ""} ${failure.error.message}`);
}

describe("the collection for API clients", () => {
  it("has one folder per API, with a request for every operation of its document, and the Sandbox walkthrough", () => {
    expect(collection.item.map((item) => item.name)).toEqual(["Integration API", "Auth API", "Admin API", "Sandbox walkthrough"]);
    const folders: Record<ApiName, { name: string; host: string }> = {
      integration: { name: "Integration API", host: "{{integrationUrl}}" },
      auth: { name: "Auth API", host: "{{authUrl}}" },
      admin: { name: "Admin API", host: "{{adminUrl}}" },
    };
    for (const api of API_NAMES) {
      const operations = Object.entries(generatedDocument(api).paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => ["get", "put", "post", "patch", "delete"].includes(method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      );
      const requests = requestsOf(folder(folders[api].name)).map((item) => {
        expect(item.request!.url.host, item.name).toEqual([folders[api].host]);
        return `${item.request!.method} /${item.request!.url.path.map((segment) => segment.replace(/^:(.+)$/, "{$1}")).join("/")}`;
      });
      expect(requests.sort(), api).toEqual(operations.sort());
    }
  });

  it("runs the Sandbox walkthrough green, twice: with a webhook receiver, then without", async () => {
    const sandbox = await t.sandbox();
    const { summary } = await run({
      collection,
      folder: "Sandbox walkthrough",
      envVar: {
        integrationUrl: t.integrationUrl,
        authUrl: t.authUrl,
        adminUrl: t.adminUrl,
        adminEmail: sandbox.integrationAdmin.email,
        adminPassword: sandbox.integrationAdmin.password,
      },
      iterationData: [{ webhookUrl: receiver.url("/webhooks/postman") }, { webhookUrl: "" }],
    });

    expect(failuresOf(summary)).toEqual([]);
    const steps = requestsOf(folder("Sandbox walkthrough")).length;
    const webhookSteps = 3; // register the receiver, its signing secret, delete it
    expect(summary.run.executions.filter((execution) => execution.response).length).toBe(steps + (steps - webhookSteps));
    expect(summary.run.stats.assertions.failed).toBe(0);
    expect(summary.run.stats.assertions.total).toBeGreaterThanOrEqual(2 * (steps - webhookSteps) + webhookSteps);

    // What the tests saw is what the service holds: two paid charges, the receiver pinged once and gone again.
    const charges = await t.database.db.selectFrom("charges").select(["reference_id", "state"]).where("reference_id", "like", "WALK-%").execute();
    expect(charges.map((charge) => charge.state)).toEqual(["total_payment", "total_payment"]);
    expect(receiver.at("/webhooks/postman").map((request) => request.json.event)).toEqual(["ping"]);
    expect(await registeredUrlsOf(t, sandbox.integration.clientId)).toEqual([]);
  }, 120_000);

  it("has scripts that compile", () => {
    type Scripted = { name: string; event?: Array<{ script: { exec: string[] } }>; item?: Scripted[] };
    const scripts = (item: Scripted): Array<[string, string]> => [
      ...(item.event ?? []).map((event): [string, string] => [item.name, event.script.exec.join("\n")]),
      ...(item.item ?? []).flatMap(scripts),
    ];
    const all = scripts({ ...(collection as unknown as Omit<Scripted, "name">), name: "the collection" });
    expect(all.length).toBeGreaterThan(10);
    // Compiled, not run: a syntax error in a script that the Newman runs here do not reach would show only in an API client.
    for (const [name, source] of all) expect(() => new Function("pm", "CryptoJS", source), name).not.toThrow();
  });

  it("signs by itself: a request of the API folders gets the merchant's test tokens, a platform admin's token, the bank feed's signature", async () => {
    const sandbox = await t.sandbox();
    const pick = (api: string, name: string) => requestsOf(folder(api)).find((item) => item.name === name)!;
    const me = pick("Integration API", "Get the merchant identity");
    const clients = pick("Admin API", "List integration clients");
    const transfer = pick("Admin API", "Record a received bank transfer");
    const { summary, sent } = await run({
      collection: { ...collection, item: [{ name: "Signing in", item: [me, clients, transfer] }] },
      envVar: {
        integrationUrl: t.integrationUrl,
        authUrl: t.authUrl,
        adminUrl: t.adminUrl,
        adminEmail: sandbox.integrationAdmin.email,
        adminPassword: sandbox.integrationAdmin.password,
        platformAdminEmail: sandbox.platformAdmin.email,
        platformAdminPassword: sandbox.platformAdmin.password,
        bankFeedSecret: BANK_FEED_SECRET,
      },
    });

    expect(failuresOf(summary)).toEqual([]);
    // The sign-ins went before the requests that needed them.
    expect(sent).toEqual([
      "POST /integration/admin/login 200",
      "POST /my-integration/test-tokens 200",
      "GET /me 200",
      "POST /integration/admin/login 200",
      "GET /integration-admin/setup/clients 200",
      "POST /internal/bank-feed/transfers 200",
    ]);
  }, 60_000);
});
