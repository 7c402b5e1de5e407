// The Sandbox's link to its Production deployment (where approved go-live requests create their
// integration): both variables or neither, an http(s) URL, and only in the Sandbox.
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../runtime/config.ts";

describe("the Production deployment of a Sandbox", () => {
  it("is absent by default and read when both variables are set", () => {
    expect(loadConfig({}, [], false).productionDeployment).toBeUndefined();
    expect(
      loadConfig({ COBRO_PRODUCTION_ADMIN_URL: "https://admin.cobro.example/", COBRO_PRODUCTION_API_KEY: "cpk_abc" }, [], false).productionDeployment,
    ).toEqual({
      adminUrl: "https://admin.cobro.example",
      apiKey: "cpk_abc",
    });
  });

  it.each([
    [{ COBRO_PRODUCTION_ADMIN_URL: "https://admin.cobro.example" }, "COBRO_PRODUCTION_ADMIN_URL and COBRO_PRODUCTION_API_KEY go together"],
    [{ COBRO_PRODUCTION_API_KEY: "cpk_abc" }, "COBRO_PRODUCTION_ADMIN_URL and COBRO_PRODUCTION_API_KEY go together"],
    [{ COBRO_PRODUCTION_ADMIN_URL: "ftp://admin.cobro.example", COBRO_PRODUCTION_API_KEY: "cpk_abc" }, "COBRO_PRODUCTION_ADMIN_URL must be an http(s) URL"],
    [
      { SERVICE_ENV: "production", COBRO_PRODUCTION_ADMIN_URL: "https://admin.cobro.example", COBRO_PRODUCTION_API_KEY: "cpk_abc" },
      "belong to the Sandbox deployment",
    ],
  ])("refuses %j with a readable line", (env, message) => {
    expect(() => loadConfig(env, [], false)).toThrow(ConfigError);
    expect(() => loadConfig(env, [], false)).toThrow(message);
  });
});
