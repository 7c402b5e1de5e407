// "Today" is the integration's: in the Sandbox, its clock's (which can be weeks ahead of the real one).
import { adminApi } from "./api.ts";
import { environment } from "./environment.ts";
import { argentinaDay } from "./format.ts";

/** The integration's Argentina day (`2026-11-22`). */
export async function integrationToday(): Promise<string> {
  return environment === "sandbox" ? (await adminApi.sandbox.getSandboxClock()).today : argentinaDay(new Date());
}
