// The portal's bundle takes the SDK as a package (`@cobro/sdk/...`, node_modules/@cobro/sdk a link to sdk/)
// resolved to its TypeScript sources by the `@cobro/source` export condition: nothing is built first, and
// each generated client's runtime is in the bundle once, from sdk/src.
import * as esbuild from "esbuild";
import { describe, expect, it } from "vitest";
import { portalBuildOptions } from "../../server/portal-bundle.ts";
import { ROOT } from "../../scripts/cobro-process.ts";

describe("the portal's bundle", () => {
  it("takes the SDK from its sources, each generated runtime once", async () => {
    const result = await esbuild.build({ ...portalBuildOptions(), absWorkingDir: ROOT, metafile: true });
    const inputs = Object.keys(result.metafile.inputs);
    const sdk = inputs.filter((input) => input.includes("sdk/") || input.includes("@cobro"));
    expect(sdk.length).toBeGreaterThan(0);
    expect(sdk.filter((input) => !input.startsWith("sdk/src/"))).toEqual([]);
    expect(sdk.filter((input) => input.endsWith("/runtime.ts")).sort()).toEqual(["sdk/src/generated/admin/runtime.ts", "sdk/src/generated/auth/runtime.ts"]);
    // The SDK's Node-only helpers (webhook signatures, OAuth with node:crypto) stay out of a browser bundle.
    expect(sdk).not.toContain("sdk/src/index.ts");
  });
});
