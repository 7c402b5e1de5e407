// Key discovery: the JWKS that verifies idTokens, and the OpenID Provider metadata.
import type { operations } from "../../generated/types/auth.ts";
import type { Handler } from "./handler.ts";

export const getJwks: Handler<"getJwks"> = async ({ services }) => ({
  status: 200,
  body: services.tokens.jwks() as operations["getJwks"]["responses"][200]["content"]["application/json"],
  headers: { "Cache-Control": "public, max-age=300" },
});

export const getOpenIdConfiguration: Handler<"getOpenIdConfiguration"> = async ({ services }) => {
  const issuer = services.tokens.issuer;
  return {
    status: 200,
    body: {
      issuer,
      authorization_endpoint: `${issuer}/integration/oauth2/authorize`,
      token_endpoint: `${issuer}/integration/oauth2/token`,
      revocation_endpoint: `${issuer}/integration/oauth2/revoke`,
      userinfo_endpoint: `${issuer}/integration/oauth2/client-info`,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
      token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
      code_challenge_methods_supported: ["S256"],
      scopes_supported: ["openid", "email", "profile"],
    },
  };
};
