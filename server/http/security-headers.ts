// The headers every response of the three APIs carries, pages and JSON alike: nothing Cobro serves may be
// framed by another site (the sign-in, consent, password reset and payer pages would be open to
// clickjacking), sniffed into another media type, or send its address (tokens travel in some paths and
// queries) as a referrer. None of the pages is meant to be framed: the checkout widget is a script that
// mounts into the store's own page, not a frame. A page sets its own, fuller Content-Security-Policy
// over this one, always with `frame-ancestors 'none'` as well.
import type { NextFunction, Request, Response } from "express";

export const BASELINE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": "frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

const BASELINE_ENTRIES = Object.entries(BASELINE_SECURITY_HEADERS);

export function baselineSecurityHeaders(_req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of BASELINE_ENTRIES) res.setHeader(name, value);
  next();
}
