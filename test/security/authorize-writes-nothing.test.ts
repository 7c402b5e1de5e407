// Nothing is written before sign-in at the authorization endpoint: the request travels sealed in the
// screen's form, `state` is capped at 1,024 characters by the contract, and a form that was altered or
// already used signs nobody in.
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { authorizeUrl, openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import { read, serviceForFile } from "../helpers/service.ts";

const t = serviceForFile();

/** The exact number of rows of every table of the service's schema. */
async function rowCounts(): Promise<Record<string, number>> {
  const { rows: tables } = await sql<{ name: string }>`select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`.execute(t.database.db);
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const { rows } = await sql<{ n: string }>`select count(*) as n from ${sql.table(name)}`.execute(t.database.db);
    counts[name] = Number(rows[0]!.n);
  }
  return counts;
}

describe("GET /integration/oauth2/authorize", () => {
  it("adds no row to any table for 1,000 requests with a 1,024-character state", async () => {
    const { integration } = await t.sandbox();
    const url = (i: number) =>
      authorizeUrl(t.authUrl, {
        response_type: "code",
        client_id: integration.clientId,
        redirect_uri: integration.redirectUri,
        state: `${i}`.padEnd(1024, "s"),
      });
    const before = await rowCounts();
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < 1000) {
          const response = await fetch(url(next++));
          await response.arrayBuffer();
          statuses.push(response.status);
        }
      }),
    );
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(await rowCounts()).toEqual(before);
  });

  it("answers 400 ValidationError for a state over 1,024 characters", async () => {
    const { integration } = await t.sandbox();
    const answer = await read(
      await fetch(
        authorizeUrl(t.authUrl, { response_type: "code", client_id: integration.clientId, redirect_uri: integration.redirectUri, state: "s".repeat(1025) }),
      ),
    );
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      code: "ValidationError",
      message: expect.stringContaining("state"),
      id: expect.any(String),
      validationDetails: [{ field: "state", rule: "maxLength", limit: 1024, message: expect.stringContaining("1024") }],
    });
  });

  it("answers 431 with no body when the URL passes the server's 16 KB, before anything is read", async () => {
    const { integration } = await t.sandbox();
    const answer = await fetch(
      authorizeUrl(t.authUrl, {
        response_type: "code",
        client_id: integration.clientId,
        redirect_uri: integration.redirectUri,
        state: "\u{10FFFD}".repeat(1500),
      }),
    );
    expect(answer.status).toBe(431);
    expect(await answer.text()).toBe("");
  });

  it("signs nobody in with an altered form, and a form once", async () => {
    const sandbox = await t.sandbox();
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri, state: "abc" }),
    );
    const last = form.transaction.at(-2) === "A" ? "B" : "A";
    const altered = await submitSignIn(
      t.authUrl,
      { ...form, transaction: `${form.transaction.slice(0, -2)}${last}${form.transaction.at(-1)}` },
      sandbox.merchant.email,
      sandbox.merchant.password,
    );
    expect(altered.status).toBe(403);
    expect(altered.location).toBeNull();

    const signedIn = await submitSignIn(t.authUrl, form, sandbox.merchant.email, sandbox.merchant.password);
    expect(signedIn.status).toBe(303);
    expect(new URL(signedIn.location!).searchParams.get("state")).toBe("abc");
    const again = await submitSignIn(t.authUrl, form, sandbox.merchant.email, sandbox.merchant.password);
    expect(again.status).toBe(403);
    expect(again.location).toBeNull();
  });
});
