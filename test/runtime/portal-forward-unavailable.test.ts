// The portal signs admins in through the Admin host, which forwards to the Auth API. When the Auth API
// cannot be reached, the browser gets the documented 503 ServiceUnavailableError with Retry-After (retry
// later), not a 500 that reads as a defect, and the log says which hop failed.
import { expect, it } from "vitest";
import { postJson, read, serviceForFile } from "../helpers/service.ts";

// Nothing listens on port 9 of the loopback: every forward is refused at once.
const t = serviceForFile({ env: { COBRO_AUTH_URL: "http://127.0.0.1:9" } });

const unavailable = { code: "ServiceUnavailableError", message: expect.stringMatching(/temporarily unavailable/), id: expect.any(String) };

it("answers the portal's sign-in with 503 ServiceUnavailableError and Retry-After when the Auth API is away", async () => {
  const answer = await read(
    await postJson(`${t.adminUrl}/portal/auth-api/integration/admin/login`, { email: "admin@example.com", password: "whatever-it-is" }),
  );
  expect(answer.status).toBe(503);
  expect(answer.json).toEqual(unavailable);
  expect(answer.headers.get("retry-after")).toBe("5");
});

it("answers a logo through the portal with the same 503", async () => {
  const response = await fetch(`${t.adminUrl}/portal/auth-api/integration/oauth2/logos/0b7e4f3a-9c2d-4e8b-a1f6-3d5c7b9e2a10`);
  expect(response.status).toBe(503);
  expect(await response.json()).toEqual(unavailable);
});
