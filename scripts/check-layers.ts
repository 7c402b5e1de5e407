// `npm run check:layers`: the arrows between Cobro's folders point one way. Reads every TypeScript file's
// imports (TypeScript's own pre-parser: static, type-only, re-exports and dynamic `import()`) and fails on
//   - an arrow not allowed: a top-level folder importing one it may not (LAYERS below, the table of
//     docs/architecture.md), for example the domain importing jobs/ or HTTP, or scripts importing tests; and
//     inside server/, the contract adapter (server/http/) importing the composition around it (INNER_LAYERS);
//   - an arrow up the domain's stack: a folder of domain/ importing one above it (DOMAIN_STACK, the picture
//     of docs/architecture.md), or a folder of domain/ that has no place in the stack;
//   - a folder cycle: two folders that import each other, directly or through others (the domain's folders
//     on one level of the stack may import each other one way only);
//   - SQL in a handler: handlers translate HTTP to a domain call and back, the domain writes the SQL.
// test/architecture/layers.test.ts runs it on the tree and feeds it trees that break each rule.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** What each top-level folder may import, besides itself. A folder not listed here may not be imported by these. */
export const LAYERS: Readonly<Record<string, readonly string[]>> = {
  generated: [],
  db: ["generated"],
  domain: ["db", "generated"],
  runtime: ["domain", "db", "generated"],
  // db/ for the types handlers pass through (the executor, row types); writing SQL in a handler is its own rule.
  handlers: ["runtime", "domain", "db", "generated"],
  jobs: ["runtime", "domain", "db", "generated"],
  server: ["handlers", "jobs", "runtime", "domain", "db", "generated"],
  scripts: ["server", "handlers", "jobs", "runtime", "domain", "db", "generated", "sdk", "portal", "spec"],
  bench: ["scripts", "server", "handlers", "jobs", "runtime", "domain", "db", "generated", "sdk"],
  test: ["*"],
  sdk: [],
  portal: ["sdk"],
};

/**
 * Folders inside a top-level folder that may import nothing else of it: server/ (start-up, the routes
 * outside the contract) composes the contract adapter, server/http/, which never imports server/'s files.
 */
export const INNER_LAYERS: Readonly<Record<string, string>> = {
  "server/http/": "server/",
};

/**
 * The domain's folders, top to bottom: a folder imports only folders on its own level or below ("" is the
 * domain's root modules). docs/architecture.md draws the same stack, and test/architecture/ holds them equal.
 */
export const DOMAIN_STACK: readonly (readonly string[])[] = [
  ["sandbox"],
  ["checkout", "reconciliation", "going-live"],
  ["charges"],
  ["sign-in", "tenants", "commissions"],
  ["webhooks", "notifications", "limits"],
  ["events"],
  ["merchants"],
  ["integration-clients"],
  ["earnings", "cvu-pool", "payer-lookup", "password-links", "audit"],
  ["outbound", "secrets"],
  [""],
];

const DOMAIN_LEVEL = new Map(DOMAIN_STACK.flatMap((level, index) => level.map((folder) => [folder, index] as const)));

/** A domain file's folder as the stack names it (`sign-in`, a subfolder as `a/b`, `""` for the root modules). */
function domainFolder(file: string): string {
  return dirname(file).slice("domain".length + 1);
}

function stackName(folder: string): string {
  return folder === "" ? "the domain's root" : `${folder}/`;
}

/** Folders whose inside is not layered: the portal is an application whose entry composes its pages. */
const CYCLES_ALLOWED_UNDER = ["portal/"];

/** Kysely's query builders and raw SQL: what a handler never calls. */
const SQL_BUILDER = /\b(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql`/;

const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git", ".data", "dist"]);

export interface Violation {
  kind: "arrow not allowed" | "arrow up the domain's stack" | "folder outside the domain's stack" | "folder cycle" | "SQL in a handler";
  /** One line a person can act on. */
  message: string;
}

/** Every `.ts`/`.tsx` file under `root` (repo-relative paths) with its source. */
export function readSources(root: string): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (directory: string): void => {
    for (const entry of readdirSync(join(root, directory), { withFileTypes: true })) {
      if (SKIPPED_DIRECTORIES.has(entry.name)) continue;
      const path = directory === "" ? entry.name : `${directory}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) sources.set(path, readFileSync(join(root, path), "utf8"));
    }
  };
  walk("");
  return sources;
}

/** The repo-relative files a source imports by relative path (packages are not arrows between folders). */
export function relativeImports(file: string, source: string): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith("./") || name.startsWith("../"))
    .map((name) => normalize(join(dirname(file), name)));
}

function topFolder(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

export function findViolations(sources: ReadonlyMap<string, string>): Violation[] {
  const violations: Violation[] = [];
  const folderArrows = new Map<string, Map<string, string>>(); // folder → imported folder → one file that shows it
  for (const [file, source] of sources) {
    if (file.includes("/generated/") || file.startsWith("generated/")) continue;
    const from = topFolder(file);
    const sql = from === "handlers" ? SQL_BUILDER.exec(source) : null;
    if (sql) violations.push({ kind: "SQL in a handler", message: `${file} writes SQL (${sql[0]}): move it into the domain` });
    for (const target of relativeImports(file, source)) {
      if (target.startsWith("..")) continue; // outside the repository (../shared)
      const to = topFolder(target);
      const allowed = LAYERS[from];
      if (from !== to && allowed !== undefined && !allowed.includes("*") && !allowed.includes(to)) {
        violations.push({
          kind: "arrow not allowed",
          message: `${file} imports ${target}: ${from}/ may import ${allowed.length ? allowed.map((f) => `${f}/`).join(", ") : "nothing outside itself"}`,
        });
      }
      for (const [inner, outer] of Object.entries(INNER_LAYERS)) {
        if (file.startsWith(inner) && target.startsWith(outer) && !target.startsWith(inner)) {
          violations.push({
            kind: "arrow not allowed",
            message: `${file} imports ${target}: ${inner} may import nothing else of ${outer} (${outer} composes it, not the reverse)`,
          });
        }
      }
      if (from === "domain" && to === "domain") {
        const upward = domainArrowUp(file, target);
        if (upward) violations.push({ kind: "arrow up the domain's stack", message: upward });
      }
      const fromFolder = dirname(file);
      const toFolder = dirname(target);
      if (fromFolder === toFolder || from === "test" || CYCLES_ALLOWED_UNDER.some((prefix) => file.startsWith(prefix))) continue;
      if (!folderArrows.has(fromFolder)) folderArrows.set(fromFolder, new Map());
      if (!folderArrows.get(fromFolder)!.has(toFolder)) folderArrows.get(fromFolder)!.set(toFolder, `${file} → ${target}`);
    }
  }
  for (const folder of new Set([...sources.keys()].filter((file) => file.startsWith("domain/")).map(domainFolder))) {
    if (!DOMAIN_LEVEL.has(folder))
      violations.push({
        kind: "folder outside the domain's stack",
        message: `domain/${folder}/ has no place in the domain's stack: add it to DOMAIN_STACK (scripts/check-layers.ts) and to docs/architecture.md`,
      });
  }
  for (const cycle of folderCycles(folderArrows)) {
    const shown = cycle.map((folder, i) => folderArrows.get(folder)!.get(cycle[(i + 1) % cycle.length]!)!);
    violations.push({ kind: "folder cycle", message: `${[...cycle, cycle[0]].map((f) => `${f}/`).join(" → ")} (${shown.join("; ")})` });
  }
  return violations;
}

/** Why a domain file may not import another (one line), or undefined when the arrow points down or sideways. */
function domainArrowUp(file: string, target: string): string | undefined {
  const from = domainFolder(file);
  const to = domainFolder(target);
  const fromLevel = DOMAIN_LEVEL.get(from);
  const toLevel = DOMAIN_LEVEL.get(to);
  if (from === to || fromLevel === undefined || toLevel === undefined || toLevel >= fromLevel) return undefined;
  return `${file} imports ${target}: ${stackName(from)} is below ${stackName(to)} in the domain's stack (DOMAIN_STACK)`;
}

/** One cycle per strongly connected group of folders (Tarjan), each as the folders in import order. */
function folderCycles(arrows: ReadonlyMap<string, ReadonlyMap<string, string>>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (folder: string): void => {
    index.set(folder, index.size);
    lowLink.set(folder, index.get(folder)!);
    stack.push(folder);
    onStack.add(folder);
    for (const next of arrows.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(folder, Math.min(lowLink.get(folder)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(folder, Math.min(lowLink.get(folder)!, index.get(next)!));
      }
    }
    if (lowLink.get(folder) === index.get(folder)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== folder);
      if (group.length > 1) groups.push(group);
    }
  };
  for (const folder of arrows.keys()) if (!index.has(folder)) visit(folder);
  return groups.map((group) => cycleThrough(group, arrows));
}

/** A path that goes round a strongly connected group, starting at its first folder in alphabetical order. */
function cycleThrough(group: string[], arrows: ReadonlyMap<string, ReadonlyMap<string, string>>): string[] {
  const members = new Set(group);
  const start = [...group].sort()[0]!;
  // Breadth-first from start back to start, within the group.
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const folder = queue.shift()!;
    for (const next of arrows.get(folder)?.keys() ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [folder];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return path;
      }
      if (!previous.has(next)) {
        previous.set(next, folder);
        queue.push(next);
      }
    }
  }
  return group;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const sources = readSources(root);
  const violations = findViolations(sources);
  for (const violation of violations) console.error(`${violation.kind}: ${violation.message}`);
  console.log(
    `layers: ${sources.size} files read, ${violations.length} violation${violations.length === 1 ? "" : "s"} (${relative(process.cwd(), root) || "."})`,
  );
  process.exit(violations.length === 0 ? 0 : 1);
}
