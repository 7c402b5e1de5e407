// The integration admin's own integration: its profile (GET/PATCH /my-integration), logo and OAuth client secret.
import { rotateIntegrationClientSecret } from "../../domain/integration-clients/client-secrets.ts";
import { DomainError } from "../../domain/errors.ts";
import { replaceIntegrationLogo } from "../../domain/integration-clients/integration-logos.ts";
import { integrationClientById, updateIntegrationProfile } from "../../domain/integration-clients/integration-clients.ts";
import { integrationLogosBaseUrl } from "../auth/logos.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import { integrationClientDetail } from "./integration-client-view.ts";
import type { Handler } from "./handler.ts";

export const getMyIntegration: Handler<"getMyIntegration"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: integrationClientDetail(await integrationClientById(services.db, admin.integrationClientId)) };
};

export const updateMyIntegration: Handler<"updateMyIntegration"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: integrationClientDetail(await updateIntegrationProfile(services.db, admin.integrationClientId, body)) };
};

export const rotateClientSecret: Handler<"rotateClientSecret"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const rotated = await rotateIntegrationClientSecret(services.db, services.clock, admin.integrationClientId, body?.graceSeconds ?? 0);
  return { status: 200, body: { clientSecret: rotated.clientSecret, previousSecretExpiresAt: rotated.previousSecretExpiresAt?.toISOString() ?? null } };
};

/** The Content-Types the contract accepts; the bytes then decide which format the image really is. */
const LOGO_CONTENT_TYPES = ["image/png", "image/jpeg", "image/webp"];

export const uploadLogo: Handler<"uploadLogo"> = async ({ caller, body, headers, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const declared = String(headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (!LOGO_CONTENT_TYPES.includes(declared)) {
    throw new DomainError("UnsupportedMediaTypeError", `Send the logo as ${LOGO_CONTENT_TYPES.join(", ")}, not ${declared || "no Content-Type"}`);
  }
  // The raw body parser hands image bodies over as bytes (the contract types them as a string).
  const bytes: unknown = body;
  const image = Buffer.isBuffer(bytes) ? bytes : Buffer.alloc(0);
  return {
    status: 200,
    body: await replaceIntegrationLogo(services.db, admin.integrationClientId, image, integrationLogosBaseUrl(services.config.publicUrls.auth)),
  };
};
