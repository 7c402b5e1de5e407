// The Sandbox's tools (simulated transfers, the integration's clock, test tokens, the test webhook) do not
// exist in Production: there each answers SandboxOnlyError.
import { DomainError } from "../errors.ts";

export function requireSandbox(serviceEnv: "sandbox" | "production", message = "This operation exists only in the Sandbox"): void {
  if (serviceEnv !== "sandbox") throw new DomainError("SandboxOnlyError", message);
}
