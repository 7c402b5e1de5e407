// The notification providers' configuration: each channel's variables go together, URLs are checked, and
// a channel left unset is absent (the Sandbox then records its messages as simulated).
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../runtime/config.ts";

const whatsapp = {
  COBRO_WHATSAPP_API_URL: "https://graph.example.com/v21.0/",
  COBRO_WHATSAPP_PHONE_NUMBER_ID: "1234567890",
  COBRO_WHATSAPP_TOKEN: "EAAG-secret",
};

describe("notification providers", () => {
  it("are absent by default, with the default send rates", () => {
    expect(loadConfig({}, [], false).notifications).toEqual({ email: undefined, whatsapp: undefined, sendsPerSecond: { email: 20, whatsapp: 80 } });
  });

  it("reads SMTP and WhatsApp settings", () => {
    const { notifications } = loadConfig(
      {
        COBRO_SMTP_URL: "smtps://user:pass@mail.example.com:465",
        COBRO_MAIL_FROM: "Cobro <avisos@example.com>",
        ...whatsapp,
        COBRO_WHATSAPP_SENDS_PER_SECOND: "40",
      },
      [],
      false,
    );
    expect(notifications.email).toEqual({ smtpUrl: "smtps://user:pass@mail.example.com:465", from: "Cobro <avisos@example.com>" });
    expect(notifications.whatsapp).toEqual({
      apiUrl: "https://graph.example.com/v21.0",
      phoneNumberId: "1234567890",
      token: "EAAG-secret",
      templatePrefix: "cobro_",
    });
    expect(notifications.sendsPerSecond).toEqual({ email: 20, whatsapp: 40 });
  });

  it.each([
    [{ COBRO_SMTP_URL: "smtp://mail.example.com" }, "COBRO_SMTP_URL and COBRO_MAIL_FROM go together"],
    [{ COBRO_SMTP_URL: "http://mail.example.com", COBRO_MAIL_FROM: "a@example.com" }, "COBRO_SMTP_URL must be an smtp:// or smtps:// URL"],
    [{ COBRO_WHATSAPP_TOKEN: "x" }, "go together: set all three, or none"],
    [{ ...whatsapp, COBRO_WHATSAPP_API_URL: "ftp://graph.example.com" }, "COBRO_WHATSAPP_API_URL must be an http(s) URL"],
    [{ COBRO_EMAIL_SENDS_PER_SECOND: "0" }, "COBRO_EMAIL_SENDS_PER_SECOND must be a positive number"],
  ])("refuses %j with a readable line", (env, message) => {
    expect(() => loadConfig(env, [], false)).toThrow(ConfigError);
    expect(() => loadConfig(env, [], false)).toThrow(message);
  });
});
