// The arrows between folders point one way (scripts/check-layers.ts): the tree as it is passes, and a tree
// with an arrow that is not allowed, a folder cycle or SQL in a handler fails, each with a line that names
// the files.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOMAIN_STACK, findViolations, readSources } from "../../scripts/check-layers.ts";

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

  it("refuse two domain folders of one level that import each other, through a third too", () => {
    const direct = findViolations(
      tree({
        "domain/sign-in/tokens.ts": `import { offer } from "../commissions/offer.ts";`,
        "domain/commissions/offer.ts": `import { token } from "../sign-in/tokens.ts";`,
      }),
    );
    expect(direct).toEqual([
      {
        kind: "folder cycle",
        message:
          "domain/commissions/ → domain/sign-in/ → domain/commissions/ (domain/commissions/offer.ts → domain/sign-in/tokens.ts; domain/sign-in/tokens.ts → domain/commissions/offer.ts)",
      },
    ]);
    const throughAThird = findViolations(
      tree({
        "domain/limits/a.ts": `import "../notifications/b.ts";`,
        "domain/notifications/b.ts": `import "../webhooks/c.ts";`,
        "domain/webhooks/c.ts": `export * from "../limits/a.ts";`,
      }),
    );
    expect(throughAThird.map((v) => v.message.split(" (")[0])).toEqual(["domain/limits/ → domain/notifications/ → domain/webhooks/ → domain/limits/"]);
  });

  it("refuse the domain's shared modules importing one of its folders", () => {
    const violations = findViolations(
      tree({
        "domain/money.ts": `import { owed } from "./charges/charges.ts";`,
        "domain/charges/charges.ts": `import { cents } from "../money.ts";`,
      }),
    );
    expect(violations.map((v) => v.kind)).toEqual(["arrow up the domain's stack", "folder cycle"]);
  });

  it("refuse an arrow up the domain's stack even without a cycle: the event log importing delivery, merchant accounts the sign-in", () => {
    const violations = findViolations(
      tree({
        "domain/webhooks/signature.ts": `export const sign = () => "";`,
        "domain/events/event-stream.ts": `import { sign } from "../webhooks/signature.ts";`,
        "domain/sign-in/password-reset.ts": `export const reset = () => {};`,
        "domain/merchants/merchant-provisioning.ts": `import { reset } from "../sign-in/password-reset.ts";`,
      }),
    );
    expect(violations).toEqual([
      {
        kind: "arrow up the domain's stack",
        message: "domain/events/event-stream.ts imports domain/webhooks/signature.ts: events/ is below webhooks/ in the domain's stack (DOMAIN_STACK)",
      },
      {
        kind: "arrow up the domain's stack",
        message:
          "domain/merchants/merchant-provisioning.ts imports domain/sign-in/password-reset.ts: merchants/ is below sign-in/ in the domain's stack (DOMAIN_STACK)",
      },
    ]);
  });

  it("refuse a domain folder that has no place in the stack", () => {
    expect(findViolations(tree({ "domain/refunds/refunds.ts": `export const refund = () => {};` }))).toEqual([
      {
        kind: "folder outside the domain's stack",
        message: "domain/refunds/ has no place in the domain's stack: add it to DOMAIN_STACK (scripts/check-layers.ts) and to docs/architecture.md",
      },
    ]);
  });

  it("draw in docs/architecture.md the stack they check", () => {
    const architecture = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
    const picture = architecture.slice(architecture.indexOf("The domain, top to bottom")).split("```")[1]!;
    // A level's line starts with one space and its folders; a line that starts further in describes the one above.
    const drawn = picture
      .split("\n")
      .filter((line) => /^ \S/.test(line))
      .map((line) =>
        line
          .trim()
          .split(/\s{2,}/)[0]!
          .split(" ")
          .map((folder) => (folder === "(root)" ? "" : folder.replace(/\/$/, ""))),
      );
    expect(drawn).toEqual(DOMAIN_STACK);
  });

  it("refuse SQL written in a handler", () => {
    const violations = findViolations(tree({ "handlers/admin/events.ts": 'export const list = (db) => db.selectFrom("events").selectAll().execute();' }));
    expect(violations).toEqual([{ kind: "SQL in a handler", message: "handlers/admin/events.ts writes SQL (selectFrom(): move it into the domain" }]);
  });
});
