// The portal's bundle: portal/src built by esbuild in memory on the first request and kept for the life of
// the process (the tests start many services; none of them pays for a build it does not use).
import { fileURLToPath } from "node:url";
import type * as esbuild from "esbuild";

export interface PortalBundle {
  js: string;
  css: string;
}

/** The export condition of sdk/package.json that names the SDK's sources (portal/tsconfig.json's customConditions too). */
export const SDK_SOURCE_CONDITION = "@cobro/source";

const ENTRY_POINT = fileURLToPath(new URL("../portal/src/main.tsx", import.meta.url));

/** esbuild's options for the portal (the dev server builds with the same ones, watching). */
export function portalBuildOptions(): esbuild.BuildOptions & { write: false } {
  return {
    entryPoints: { portal: ENTRY_POINT },
    bundle: true,
    minify: true,
    write: false,
    outdir: "/portal-assets", // nothing is written: esbuild names the outputs after it
    format: "esm",
    platform: "browser",
    target: ["chrome111", "firefox115", "safari16.4", "edge111"],
    jsx: "automatic",
    jsxImportSource: "preact",
    // The portal imports the SDK by its package name, as an integrator would (node_modules/@cobro/sdk is a
    // link to sdk/); this condition of its `exports` picks the TypeScript sources, so nothing is built first.
    // Setting `conditions` drops esbuild's default `module` condition: it is named again to keep it.
    conditions: [SDK_SOURCE_CONDITION, "module"],
    legalComments: "none",
    logLevel: "silent",
  };
}

/** The JavaScript and CSS files of a build's result. */
export function bundleOf(outputFiles: esbuild.OutputFile[]): PortalBundle {
  const js = outputFiles.find((file) => file.path.endsWith(".js"));
  const css = outputFiles.find((file) => file.path.endsWith(".css"));
  if (!js || !css) throw new Error("the portal's build produced no JavaScript or no CSS");
  return { js: js.text, css: css.text };
}

let builtOnce: Promise<PortalBundle> | undefined;

/** The portal's bundle, built on first use and kept for the process (a failed build is retried next time). */
export function portalBundle(): Promise<PortalBundle> {
  // esbuild's module is loaded with the first build: a process that serves no portal page never loads it.
  builtOnce ??= import("esbuild")
    .then((bundler) => bundler.build(portalBuildOptions()))
    .then(
      (result) => bundleOf(result.outputFiles),
      (error: unknown) => {
        builtOnce = undefined;
        throw error;
      },
    );
  return builtOnce;
}
