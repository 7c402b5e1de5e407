// The integration's merchant accounts: unlinking, and the Sandbox test tokens.
import type { operations } from "../../generated/types/admin.ts";
import type { AdminApiCaller } from "../../domain/identity/callers.ts";
import { DomainError } from "../../domain/errors.ts";
import { ensureTestMerchant, linkMerchant, unlinkMerchant as unlink } from "../../domain/identity/accounts.ts";
import { issueGrant } from "../../domain/identity/oauth.ts";
import { isUuid } from "../../domain/ids.ts";
import type { OperationHandler } from "../../server/handler-types.ts";
import { requireIntegrationAdmin } from "./caller.ts";

type Handler<Id extends keyof operations> = OperationHandler<operations[Id], AdminApiCaller>;

export const unlinkMerchant: Handler<"unlinkMerchant"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  if (!isUuid(params.integrationClientUserId)) throw new DomainError("IntegrationClientUserNotFoundError", "No linked merchant account with that integrationClientUserId in this integration");
  await unlink(services.db, admin.integrationClientId, params.integrationClientUserId, services.clock.now());
  return { status: 204 };
};

export const createTestTokens: Handler<"createTestTokens"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  if (services.config.serviceEnv !== "sandbox") throw new DomainError("SandboxOnlyError", "Test tokens exist only in the Sandbox");
  const { db, clock, tokens } = services;
  const result = await db.transaction().execute(async (trx) => {
    const client = await trx.selectFrom("integration_clients").selectAll().where("id", "=", admin.integrationClientId).executeTakeFirstOrThrow();
    const merchant = await ensureTestMerchant(trx, client);
    const link = await linkMerchant(trx, client.id, merchant.id, clock.now());
    return { client, merchant, wasActive: link.wasActive };
  });
  const set = await issueGrant(db, clock, tokens, result.client, result.merchant);
  return {
    status: 200,
    body: { idToken: set.idToken, refreshToken: set.refreshToken, expiresIn: set.expiresIn, autoLinkAction: result.wasActive ? "already-linked" : "linked" },
  };
};
