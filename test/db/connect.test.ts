import net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { openDatabase } from "../../db/connect.ts";
import { CobroStartupError, redactConnectionString } from "../../db/errors.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { captureLogs } from "../helpers/captured-logs.ts";

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

async function openError(databaseUrl: string, connectTimeoutMs?: number): Promise<{ error: Error; ms: number }> {
  const started = Date.now();
  const error = await openDatabase({ databaseUrl, dataDir: "unused", connectTimeoutMs }).then(
    async (handle) => {
      await handle.close();
      throw new Error("expected openDatabase to fail");
    },
    (error: unknown) => error as Error,
  );
  return { error, ms: Date.now() - started };
}

function expectReadable(error: Error): void {
  expect(error).toBeInstanceOf(CobroStartupError);
  expect(error.message).not.toContain("\n");
}

async function unusedPort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("values coming back from PostgreSQL", () => {
  it("reads int8 as a number, numeric as an exact string, date as YYYY-MM-DD", async () => {
    const { rows } = await database.pool.query(
      "select 20000000000::int8 as cents, 12.345::numeric as rate, date '2026-03-01' as day, count(*) as n from (values (1), (2)) v(x)",
    );
    expect(rows[0]).toEqual({ cents: 20_000_000_000, rate: "12.345", day: "2026-03-01", n: 2 });
  });

  it("refuses an int8 beyond the safe integer range instead of losing digits", async () => {
    await expect(database.pool.query("select 9007199254740993::int8 as big")).rejects.toThrow(/safe integer range/);
  });

  it("runs sessions in UTC", async () => {
    const { rows } = await database.pool.query("select current_setting('TimeZone') as tz");
    expect(rows[0].tz).toBe("UTC");
  });
});

describe("a wrong DATABASE_URL", () => {
  it("is refused quickly when nothing listens on the port", async () => {
    const port = await unusedPort();
    const { error, ms } = await openError(`postgres://cobro:s3cret@127.0.0.1:${port}/cobro`);
    expectReadable(error);
    expect(error.message).toBe(
      `Cannot connect to PostgreSQL at postgres://cobro:***@127.0.0.1:${port}/cobro: connection refused (is the server running, and on that port?)`,
    );
    expect(ms).toBeLessThan(3000);
  });

  it("times out on a server that never answers", async () => {
    const silent = net.createServer(() => {}).listen(0, "127.0.0.1");
    await new Promise((resolve) => silent.once("listening", resolve));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const { error, ms } = await openError(`postgres://cobro@127.0.0.1:${port}/cobro`, 500);
      expectReadable(error);
      expect(error.message).toBe(`Cannot connect to PostgreSQL at postgres://cobro@127.0.0.1:${port}/cobro: no answer within 0.5 s`);
      expect(ms).toBeLessThan(3000);
    } finally {
      silent.close();
    }
  });

  it("is not a URL", async () => {
    const { error } = await openError("host=db user=cobro password=hunter2");
    expectReadable(error);
    expect(error.message).toMatch(/^DATABASE_URL is not a PostgreSQL URL/);
    expect(error.message).not.toContain("hunter2");
  });

  it("names a database that does not exist", async () => {
    const url = new URL(database.connectionString);
    url.pathname = "/no_such_database_here";
    const { error } = await openError(url.toString());
    expectReadable(error);
    expect(error.message).toContain('database "no_such_database_here" does not exist');
  });

  it("has a wrong password, which the message never shows", async (context) => {
    const url = new URL(inject("databaseAdminUrl"));
    url.password = "certainly-not-the-password";
    const { error } = await openError(url.toString()).catch(() => ({ error: undefined as unknown as Error }));
    // CI's PostgreSQL 15 trusts every local connection, so a server named by DATABASE_URL may not check
    // passwords; the embedded one must, and a lost check there fails here.
    if (!error && process.env.DATABASE_URL) context.skip("the server at DATABASE_URL does not check passwords");
    expect(error, "the embedded PostgreSQL accepted a wrong password").toBeDefined();
    expectReadable(error);
    expect(error.message).toContain("password authentication failed");
    expect(error.message).not.toContain("certainly-not-the-password");
  });
});

describe("redactConnectionString", () => {
  it("hides passwords in the authority and in parameters", () => {
    expect(redactConnectionString("postgres://u:p%40ss@h:5432/d?sslpassword=x&application_name=a")).toBe(
      "postgres://u:***@h:5432/d?sslpassword=***&application_name=a",
    );
    expect(redactConnectionString("not a url at all")).toBe("(an unparseable connection string)");
  });
});

describe("a pooled connection that fails while idle", () => {
  it("logs one short line with the error's message and code, not the client's statements or cancel key", async () => {
    const { logger, logLines } = captureLogs("warn");
    const watched = await createTestDatabase({ logger, poolSize: 1 });
    try {
      // The connection has prepared statements of its own, as the service's do.
      await watched.db.selectFrom("merchant_accounts").select("id").where("email", "=", "nadie@example.com").execute();
      const { rows } = await watched.pool.query("select pg_backend_pid() as pid");
      await database.pool.query("select pg_terminate_backend($1)", [rows[0].pid]);
      await expect.poll(() => logLines.length).toBeGreaterThan(0);
      const failures = logLines.filter((line) => /database connection failed/.test(String(line.msg)));
      for (const failure of failures) {
        const text = JSON.stringify(failure);
        expect(text).not.toMatch(/merchant_accounts|secretKey|processID/i);
        expect(text.length).toBeLessThan(600);
        expect(failure).toMatchObject({ reason: "terminating connection due to administrator command", code: "57P01" });
      }
      // One line for the one connection (not one from the connection and another from the pool).
      expect(failures).toHaveLength(1);
    } finally {
      await watched.close();
    }
  });
});
