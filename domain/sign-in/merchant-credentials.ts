// A merchant account signing in with its email and password: on the authorization screen, and on the
// pages of the links Cobro mails to merchant accounts (the payout link, commission proposals).
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { MerchantAccount } from "../../db/tables/merchants.table.ts";
import { throttledCheck, type CredentialThrottle } from "./credential-throttle.ts";
import { DomainError } from "../errors.ts";
import { burnVerification, verifySecret } from "../secrets/hashing.ts";

/**
 * The merchant account with this email (any case) and password. An unknown email still runs one argon2
 * verification, so that it answers in about the time a wrong password does. Guessing is throttled per
 * email and per client address (domain/sign-in/credential-throttle.ts), on every page that signs in.
 */
export async function signInMerchantAccount(
  db: Kysely<Database>,
  throttle: CredentialThrottle,
  input: { email: string; password: string; clientAddress: string },
): Promise<MerchantAccount> {
  const { email, password, clientAddress } = input;
  return throttledCheck(throttle, { account: { scope: "merchant-email", id: email }, clientAddress }, () => checkMerchantPassword(db, email, password));
}

async function checkMerchantPassword(db: Kysely<Database>, email: string, password: string): Promise<MerchantAccount> {
  const merchant = await db.selectFrom("merchant_accounts").selectAll().where(sql`lower(email)`, "=", email.trim().toLowerCase()).executeTakeFirst();
  if (!merchant) {
    await burnVerification(password);
    throw new DomainError("InvalidGrantError", "There is no merchant account with that email in this environment");
  }
  if (!(await verifySecret(merchant.password_hash, password))) {
    throw new DomainError("InvalidCredentialsError", "Wrong password");
  }
  // Told only to who knows the password: the provider suspended or closed the account.
  if (merchant.status !== "active") throw new DomainError("MerchantAccountNotActiveError", `This merchant account is ${merchant.status}: it cannot sign in`);
  return merchant;
}
