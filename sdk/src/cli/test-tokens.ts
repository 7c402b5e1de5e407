// `cobro test-tokens`: tokens of the integration's test merchant account, for calling the Integration API by hand.
import * as admin from "../generated/admin/index.js";
import { apiJson, type Command } from "./command.js";

export const testTokenCommands: Command[] = [
  {
    name: ["test-tokens"],
    summary: "Get tokens of the integration's test merchant account (linked on first use) for the Integration API.",
    details: "Send the idToken as `Authorization: Bearer` to the Integration API; it lasts expiresIn seconds (1 hour).",
    async run({ session, out }) {
      const tokens = await apiJson(new admin.SandboxApi(session.adminConfiguration()).createTestTokensRaw());
      if (out.json) out.document(tokens);
      else
        out.fields([
          ["idToken", tokens.idToken],
          ["refreshToken", tokens.refreshToken],
          ["expiresIn", `${tokens.expiresIn} s`],
          ["link", tokens.autoLinkAction],
          ["integration API", session.urls().integrationUrl],
        ]);
    },
  },
];
