// The bodies the contracts take, read before openapi-backend validates them: JSON, forms, and images
// (integration logos, with a limit of their own).
import express, { type Request, type RequestHandler } from "express";
import { MAX_LOGO_BYTES } from "../../domain/integration-clients/integration-logos.ts";

/** JSON (its exact bytes kept too), forms, images; in the order they are tried. */
export function bodyParsers(limit: number): RequestHandler[] {
  // The exact bytes are kept for the schemes that sign the body (the bank feed).
  const keepRawBody = (req: Request, _res: unknown, buffer: Buffer): void => {
    (req as Request & { rawBody?: Buffer }).rawBody = buffer;
  };
  return [
    express.json({ limit, type: ["application/json", "application/*+json"], verify: keepRawBody }),
    express.urlencoded({ limit, extended: false }),
    express.raw({ limit: MAX_LOGO_BYTES, type: ["image/*"] }),
  ];
}
