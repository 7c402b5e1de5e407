// A validation token travels as the `validation-token` header of every event to its URL: the contract
// takes only visible ASCII (`!` to `~`), so a token with a line break, a space or a control character is
// refused when set instead of making every later delivery fail.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" } });
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const REFUSED = ["token-with\r\nX-Injected: 1", "token with spaces inside", "token\twith-a-tab-inside", "tokén-no-ascii-letters"];

describe("validation tokens", () => {
  it("with a line break, a space, a tab or a non-ASCII letter are 400 ValidationError on webhook URLs", async () => {
    const admin = await sandboxAdmin(t, await t.sandbox());
    for (const validationToken of REFUSED) {
      const answer = await admin.call("POST", "/my-integration/urls", { url: receiver.url("/tokens"), urlType: "webhook", validationToken });
      expect({ validationToken, status: answer.status, code: answer.json.code, field: answer.json.validationDetails?.[0]?.field }).toEqual({
        validationToken,
        status: 400,
        code: "ValidationError",
        field: "validationToken",
      });
    }
    const accepted = await admin.call("POST", "/my-integration/urls", {
      url: receiver.url("/tokens"),
      urlType: "webhook",
      validationToken: "Visible!ASCII~token_1234",
    });
    expect(accepted.status).toBe(201);
  });
});
