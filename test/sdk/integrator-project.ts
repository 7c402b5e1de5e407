// An integrator's project in a scratch folder, with `@cobro/sdk` as the built package: tsc of sdk/ into the
// project's node_modules, as `npm pack` would ship it (a build of its own, so that it never races
// test/sdk/package.test.ts over sdk/dist). Code written into it imports the SDK by its package name,
// is typechecked against the published declarations and runs with Node. Every command runs without
// blocking: the service under test lives in this process, and a stalled event loop would stall it too.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../../scripts/cobro-process.ts";

const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

/** Runs Node (this suite's) with `args`; a failure carries the command's output. */
export async function runNode(args: string[], cwd: string): Promise<string> {
  try {
    return (await promisify(execFile)(process.execPath, args, { cwd, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/** A new project folder (an ESM package) with the SDK built into node_modules/@cobro/sdk. */
export async function createIntegratorProject(prefix: string): Promise<string> {
  const project = mkdtempSync(join(tmpdir(), prefix));
  const sdk = join(project, "node_modules", "@cobro", "sdk");
  mkdirSync(sdk, { recursive: true });
  await runNode([TSC, "-p", join(ROOT, "sdk", "tsconfig.json"), "--outDir", join(sdk, "dist")], ROOT);
  copyFileSync(join(ROOT, "sdk", "package.json"), join(sdk, "package.json"));
  // The package's bin, which runs dist/cli/main.js.
  mkdirSync(join(sdk, "bin"));
  copyFileSync(join(ROOT, "sdk", "bin", "cobro.js"), join(sdk, "bin", "cobro.js"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "integrator-app", private: true, type: "module" }));
  return project;
}

/** Removes the project (it may not exist yet); the service it ran against is the file's, closed by its fixture. */
export function tearDownIntegratorProject(project: string | undefined): void {
  if (project) rmSync(project, { recursive: true, force: true });
}

/** Typechecks `files` of the project against the package's declarations (strict, nodenext). */
export async function typecheckIntegratorProject(project: string, files: string[]): Promise<void> {
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        lib: ["es2022", "dom"],
        strict: true,
        noEmit: true,
        allowImportingTsExtensions: true,
        typeRoots: [join(ROOT, "node_modules", "@types")],
        types: ["node"],
      },
      files,
    }),
  );
  await runNode([TSC, "-p", join(project, "tsconfig.json")], project);
}
