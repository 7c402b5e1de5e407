// Hashing and random tokens. Passwords and client secrets: argon2id (memory-hard; a person may choose a
// weak password, and a stolen table must not reveal it). Random tokens we look up by value (codes,
// refresh tokens, CSRF tokens): SHA-256, which is enough for 256 random bits and keeps lookups indexed.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";

export async function hashSecret(secret: string): Promise<string> {
  return hash(secret);
}

export async function verifySecret(storedHash: string, secret: string): Promise<boolean> {
  try {
    return await verify(storedHash, secret);
  } catch {
    return false;
  }
}

/** A hash of an absent secret, so that a wrong email costs as much as a wrong password. */
let dummyHash: Promise<string> | undefined;
export async function burnVerification(secret: string): Promise<void> {
  dummyHash ??= hash("not-a-real-secret");
  await verifySecret(await dummyHash, secret);
}

/** 256 random bits, base64url, with a readable prefix (`ac_` code, `rt_` refresh token, …). */
export function randomToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString("base64url")}`;
}

export function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function sha256Base64Url(value: string): string {
  return createHash("sha256").update(value).digest("base64url");
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A readable random password for accounts the service creates (sandbox bootstrap, invitations). */
export function generatePassword(): string {
  return randomBytes(15).toString("base64url");
}
