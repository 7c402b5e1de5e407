// Which environment this deployment is, as the page the server sent says (`<meta name="cobro-environment">`):
// the Sandbox's tools (simulated payments, test tokens, the clock, the test webhook, going live) exist
// only there, and Production answers them 403.
export type Environment = "sandbox" | "production";

export const ENVIRONMENT_LABELS: Record<Environment, string> = { sandbox: "Sandbox", production: "Producción" };

function read(): Environment {
  const declared = document.querySelector<HTMLMetaElement>('meta[name="cobro-environment"]')?.content;
  return declared === "production" ? "production" : "sandbox";
}

export const environment: Environment = read();
