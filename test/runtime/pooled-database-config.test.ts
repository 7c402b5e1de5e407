// COBRO_POOLED_DATABASE_URL: a pooler in transaction mode for the API's queries, beside DATABASE_URL (the
// direct connection that migrations, the LISTEN connection and the worker keep to).
import { expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../runtime/config.ts";

const DIRECT = "postgres://cobro@db.internal:5432/cobro";
const POOLED = "postgres://cobro@pgbouncer.internal:6432/cobro";

it("is off by default and read with DATABASE_URL", () => {
  expect(loadConfig({ DATABASE_URL: DIRECT }, [], false).pooledDatabaseUrl).toBeUndefined();
  expect(loadConfig({ DATABASE_URL: DIRECT, COBRO_POOLED_DATABASE_URL: "" }, [], false).pooledDatabaseUrl).toBeUndefined();
  expect(loadConfig({ DATABASE_URL: DIRECT, COBRO_POOLED_DATABASE_URL: POOLED }, [], false)).toMatchObject({ databaseUrl: DIRECT, pooledDatabaseUrl: POOLED });
});

it("refuses a URL that is not PostgreSQL's", () => {
  const load = () => loadConfig({ DATABASE_URL: DIRECT, COBRO_POOLED_DATABASE_URL: "mysql://db/cobro" }, [], false);
  expect(load).toThrow(ConfigError);
  expect(load).toThrow("COBRO_POOLED_DATABASE_URL must be a postgres:// or postgresql:// connection string");
});

it("refuses a pooler without DATABASE_URL: the embedded PostgreSQL has none in front of it", () => {
  const load = () => loadConfig({ COBRO_POOLED_DATABASE_URL: POOLED }, [], false);
  expect(load).toThrow(ConfigError);
  expect(load).toThrow("COBRO_POOLED_DATABASE_URL needs DATABASE_URL (the same database, without the pooler)");
});
