// The integration's merchant accounts (its users): the list, unlinking, and the Sandbox test tokens.
import type { components } from "../../generated/types/admin.ts";
import { DomainError } from "../../domain/errors.ts";
import { isUuid } from "../../domain/ids.ts";
import { unlinkMerchant as unlink } from "../../domain/merchants/merchant-accounts.ts";
import { listLinkedMerchants } from "../../domain/merchants/merchant-users.ts";
import { requireSandbox } from "../../domain/sandbox/sandbox-only.ts";
import { createTestTokens as create } from "../../domain/sandbox/test-tokens.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

type LinkedMerchant = Awaited<ReturnType<typeof listLinkedMerchants>>["items"][number];

function integrationUserView(row: LinkedMerchant): components["schemas"]["IntegrationClientUser"] {
  return {
    integrationClientUserId: row.linkId,
    userId: row.merchantAccountId,
    email: row.email,
    fantasyName: row.fantasy_name,
    joinedAt: row.linked_at.toISOString(),
    ...(row.tenantKey ? { tenantKey: row.tenantKey, tenantName: row.tenantName! } : {}),
    currentCommissionPercentage: Number(row.commission_percentage),
    ...(row.proposalId
      ? {
          pendingCommissionProposal: {
            invitationId: row.proposalId,
            expiresAt: row.proposalExpiresAt!.toISOString(),
            proposedPercentage: Number(row.proposedPercentage),
          },
        }
      : {}),
  };
}

export const listIntegrationUsers: Handler<"listIntegrationUsers"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listLinkedMerchants(services.db, admin.integrationClientId, page, services.clock.now());
  return { status: 200, body: { items: items.map(integrationUserView), total, ...page } };
};

export const unlinkMerchant: Handler<"unlinkMerchant"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  if (!isUuid(params.integrationClientUserId))
    throw new DomainError("IntegrationClientUserNotFoundError", "No linked merchant account with that integrationClientUserId in this integration");
  await unlink(services.db, admin.integrationClientId, params.integrationClientUserId, services.clock.now());
  return { status: 204 };
};

export const createTestTokens: Handler<"createTestTokens"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv, "Test tokens exist only in the Sandbox");
  const { tokens, wasLinked } = await create(services.db, services.tokens, admin.integrationClientId, services.clock.now());
  return {
    status: 200,
    body: { idToken: tokens.idToken, refreshToken: tokens.refreshToken, expiresIn: tokens.expiresIn, autoLinkAction: wasLinked ? "already-linked" : "linked" },
  };
};
