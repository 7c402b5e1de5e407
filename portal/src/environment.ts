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

/**
 * The redirect URI the Sandbox's own integration accepts from the start (`<meta name="cobro-sandbox-redirect-uri">`,
 * the Sandbox only): a registered URL of none, so the portal says it where URLs are configured.
 */
export const sandboxRedirectUri: string | undefined =
  environment === "sandbox" ? document.querySelector<HTMLMetaElement>('meta[name="cobro-sandbox-redirect-uri"]')?.content || undefined : undefined;
