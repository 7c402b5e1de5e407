// The arrows between folders point one way (scripts/check-layers.ts): the tree as it is passes, and a tree
// with an arrow that is not allowed, a folder cycle or SQL in a handler fails, each with a line that names
// the files.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findViolations, readSources } from "../../scripts/check-layers.ts";

const ROOT = join(import.meta.dirname, "..", "..");

function tree(files: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(files));
}

describe("the layers of the tree", () => {
  it("hold: no arrow that is not allowed, no folder cycle, no SQL in a handler", () => {
    expect(findViolations(readSources(ROOT))).toEqual([]);
  });

  it("refuse the domain importing the worker, and scripts importing test helpers", () => {
    const violations = findViolations(
      tree({
        "jobs/tasks.ts": `export const tasks = {};`,
        "domain/charges/charges.ts": `import { tasks } from "../../jobs/tasks.ts";\nexport const x = tasks;`,
        "test/helpers/service.ts": `export const start = () => {};`,
        "scripts/bootstrap.ts": `import type { start } from "../test/helpers/service.ts";`,
      }),
    );
    expect(violations.map((v) => v.kind)).toEqual(["arrow not allowed", "arrow not allowed"]);
    expect(violations[0]!.message).toBe("domain/charges/charges.ts imports jobs/tasks.ts: domain/ may import db/, generated/");
    expect(violations[1]!.message).toMatch(/^scripts\/bootstrap\.ts imports test\/helpers\/service\.ts: scripts\/ may import/);
  });

  it("refuse an import of the composition root (server/) from below, type-only and dynamic imports included", () => {
    const violations = findViolations(
      tree({
        "server/service.ts": `export type Service = {};`,
        "handlers/admin/events.ts": `import type { Service } from "../../server/service.ts";`,
        "runtime/config.ts": `export const load = () => import("../server/service.ts");`,
      }),
    );
    expect(violations.map((v) => v.message)).toEqual([
      "handlers/admin/events.ts imports server/service.ts: handlers/ may import runtime/, domain/, db/, generated/",
      "runtime/config.ts imports server/service.ts: runtime/ may import domain/, db/, generated/",
    ]);
  });

  it("refuse an import of the contract adapter (server/http/) from below, and the adapter importing the composition around it", () => {
    const violations = findViolations(
      tree({
        "server/http/api-app.ts": `export const createApiApp = () => {};`,
        "server/service.ts": `import { createApiApp } from "./http/api-app.ts";\nexport type Service = {};`,
        "handlers/admin/x.ts": `import { createApiApp } from "../../server/http/api-app.ts";`,
        "server/http/answering.ts": `import type { Service } from "../service.ts";`,
      }),
    );
    expect(violations.map((v) => v.message)).toEqual([
      "handlers/admin/x.ts imports server/http/api-app.ts: handlers/ may import runtime/, domain/, db/, generated/",
      "server/http/answering.ts imports server/service.ts: server/http/ may import nothing else of server/ (server/ composes it, not the reverse)",
      "server/ → server/http/ → server/ (server/service.ts → server/http/api-app.ts; server/http/answering.ts → server/service.ts)",
    ]);
  });

  it("refuse two domain folders that import each other, through a third too", () => {
    const direct = findViolations(
      tree({
        "domain/charges/charges.ts": `import { queue } from "../notifications/outbox.ts";`,
        "domain/notifications/outbox.ts": `import { owed } from "../charges/charges.ts";`,
      }),
    );
    expect(direct).toEqual([
      {
        kind: "folder cycle",
        message:
          "domain/charges/ → domain/notifications/ → domain/charges/ (domain/charges/charges.ts → domain/notifications/outbox.ts; domain/notifications/outbox.ts → domain/charges/charges.ts)",
      },
    ]);
    const throughAThird = findViolations(
      tree({
        "domain/a/a.ts": `import "../b/b.ts";`,
        "domain/b/b.ts": `import "../c/c.ts";`,
        "domain/c/c.ts": `export * from "../a/a.ts";`,
      }),
    );
    expect(throughAThird.map((v) => v.message.split(" (")[0])).toEqual(["domain/a/ → domain/b/ → domain/c/ → domain/a/"]);
  });

  it("refuse the domain's shared modules importing one of its folders", () => {
    const violations = findViolations(
      tree({
        "domain/money.ts": `import { owed } from "./charges/charges.ts";`,
        "domain/charges/charges.ts": `import { cents } from "../money.ts";`,
      }),
    );
    expect(violations.map((v) => v.kind)).toEqual(["folder cycle"]);
  });

  it("refuse SQL written in a handler", () => {
    const violations = findViolations(tree({ "handlers/admin/events.ts": 'export const list = (db) => db.selectFrom("events").selectAll().execute();' }));
    expect(violations).toEqual([{ kind: "SQL in a handler", message: "handlers/admin/events.ts writes SQL (selectFrom(): move it into the domain" }]);
  });
});
