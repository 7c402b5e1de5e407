// Uploading the integration's logo (PUT /my-integration/logo) and serving it on the Auth API host, over
// real HTTP with images sharp makes here: the accepted formats judged by their bytes, the scaling to
// 512 px, the caching headers, the authorization screen that shows it, and every documented refusal.
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { read, serviceForFile } from "../helpers/service.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";
import { authorizeUrl, openSignInForm } from "../helpers/oauth.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile();

const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

const solid = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } });

async function integrationAdmin(): Promise<{ sandbox: SandboxCredentials; token: string }> {
  const sandbox = await t.sandbox();
  const { token } = await signedInAdmin(t, sandbox.integrationAdmin);
  return { sandbox, token };
}

async function upload(token: string, image: Buffer, contentType: string) {
  return read(
    await fetch(`${t.adminUrl}/my-integration/logo`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": contentType },
      body: image,
    }),
  );
}

async function currentLogoUrl(token: string): Promise<string | null> {
  return (await read(await fetch(`${t.adminUrl}/my-integration/me`, { headers: { authorization: `Bearer ${token}` } }))).json.logoUrl;
}

/** The served logo, fetched from the test's Auth API at the path of its public `logoUrl`. */
async function served(logoUrl: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.authUrl}${new URL(logoUrl).pathname}`, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe("uploading a logo", () => {
  it("scales a PNG to 512 px on its longest side and serves it with caching headers", async () => {
    const { token } = await integrationAdmin();
    const result = await upload(token, await solid(1024, 600).png().toBuffer(), "image/png");
    expect(result.status, result.text).toBe(200);
    expect(result.json).toEqual({ logoUrl: expect.stringMatching(new RegExp(`^${t.config.publicUrls.auth}/integration/oauth2/logos/[0-9a-f-]{36}$`)) });
    expect(await currentLogoUrl(token)).toBe(result.json.logoUrl);

    const image = await served(result.json.logoUrl);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/webp");
    expect(image.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const etag = image.headers.get("etag");
    expect(etag).toMatch(/^".+"$/);
    expect(await sharp(image.bytes).metadata()).toMatchObject({ format: "webp", width: 512, height: 300 });

    const revalidated = await served(result.json.logoUrl, { "if-none-match": etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.bytes.length).toBe(0);
    expect(revalidated.headers.get("etag")).toBe(etag);
  });

  it("judges the format by the bytes: a JPEG declared as PNG and a WEBP are accepted; a small image is never enlarged", async () => {
    const { token } = await integrationAdmin();
    const jpeg = await upload(token, await solid(300, 800).jpeg().toBuffer(), "image/png");
    expect(jpeg.status, jpeg.text).toBe(200);
    expect(await sharp((await served(jpeg.json.logoUrl)).bytes).metadata()).toMatchObject({ format: "webp", width: 192, height: 512 });

    const webp = await upload(token, await solid(100, 50).webp().toBuffer(), "image/jpeg");
    expect(webp.status, webp.text).toBe(200);
    expect(webp.json.logoUrl).not.toBe(jpeg.json.logoUrl);
    expect(await sharp((await served(webp.json.logoUrl)).bytes).metadata()).toMatchObject({ format: "webp", width: 100, height: 50 });

    // The replaced logo's address is gone.
    const replaced = await read(await fetch(`${t.authUrl}${new URL(jpeg.json.logoUrl).pathname}`));
    expect(replaced.status).toBe(404);
    expect(replaced.json).toEqual(generalError("LogoNotFoundError"));
  });

  it("is shown on the authorization screen, whose CSP lets the stored logos load", async () => {
    const { sandbox, token } = await integrationAdmin();
    const { json } = await upload(token, await solid(64, 64).png().toBuffer(), "image/png");
    const response = await fetch(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri }),
    );
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain(`img-src ${t.config.publicUrls.auth}/integration/oauth2/logos/ `);
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri }),
    );
    expect(form.page).toContain(`<img class="logo" src="${json.logoUrl}"`);
  });

  describe("refusals, each leaving the logo unchanged", () => {
    let token: string;
    let logoUrl: string;
    beforeAll(async () => {
      ({ token } = await integrationAdmin());
      logoUrl = (await upload(token, await solid(20, 20).png().toBuffer(), "image/png")).json.logoUrl;
    });

    async function expectRefused(image: Buffer, contentType: string, status: number, code: string) {
      const result = await upload(token, image, contentType);
      expect(result.status, result.text).toBe(status);
      expect(result.json).toEqual(generalError(code));
      expect(await currentLogoUrl(token)).toBe(logoUrl);
      return result.json.message as string;
    }

    const svg = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');

    it("415 UnsupportedMediaTypeError for an SVG, whatever its declared type, and for a GIF", async () => {
      await expectRefused(svg, "image/png", 415, "UnsupportedMediaTypeError");
      await expectRefused(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), "image/webp", 415, "UnsupportedMediaTypeError");
      await expectRefused(
        await sharp(await solid(10, 10).png().toBuffer())
          .gif()
          .toBuffer(),
        "image/png",
        415,
        "UnsupportedMediaTypeError",
      );
    });

    it("415 UnsupportedMediaTypeError for a Content-Type that is not an accepted image type", async () => {
      await expectRefused(svg, "image/svg+xml", 415, "UnsupportedMediaTypeError");
      await expectRefused(await solid(10, 10).png().toBuffer(), "image/gif", 415, "UnsupportedMediaTypeError");
      await expectRefused(await solid(10, 10).png().toBuffer(), "application/octet-stream", 415, "UnsupportedMediaTypeError");
    });

    it("400 InvalidImageError for bytes that are no image, or a truncated one", async () => {
      await expectRefused(randomBytes(2048), "image/png", 400, "InvalidImageError");
      const png = await solid(300, 300).png().toBuffer();
      await expectRefused(png.subarray(0, 40), "image/png", 400, "InvalidImageError");
    });

    it("400 InvalidImageError for a decompression bomb (more than 4096 × 4096 pixels)", async () => {
      const bomb = await solid(4200, 4100).png({ compressionLevel: 9 }).toBuffer();
      expect(bomb.length).toBeLessThan(1024 * 1024);
      await expectRefused(bomb, "image/png", 400, "InvalidImageError");
    });

    it("413 PayloadTooLarge over 5 MB", async () => {
      const noise = await sharp(randomBytes(1400 * 1400 * 3), { raw: { width: 1400, height: 1400, channels: 3 } })
        .png({ compressionLevel: 0 })
        .toBuffer();
      expect(noise.length).toBeGreaterThan(5 * 1024 * 1024 + 1);
      expect(await expectRefused(noise, "image/png", 413, "PayloadTooLarge")).toContain(`${5 * 1024 * 1024} bytes`);
      // One byte over the limit: a readable PNG with trailing bytes.
      const small = await solid(10, 10).png().toBuffer();
      const justOver = Buffer.concat([small, Buffer.alloc(5 * 1024 * 1024 + 1 - small.length)]);
      expect(await expectRefused(justOver, "image/png", 413, "PayloadTooLarge")).toContain(`${5 * 1024 * 1024} bytes`);
    });

    it("401 without an admin token, 403 for a platform admin", async () => {
      const image = await solid(10, 10).png().toBuffer();
      const anonymous = await read(await fetch(`${t.adminUrl}/my-integration/logo`, { method: "PUT", headers: { "content-type": "image/png" }, body: image }));
      expect(anonymous.status).toBe(401);
      expect(anonymous.json).toEqual(generalError("UnauthorizedError"));
      const sandbox = await t.sandbox();
      const platform = await signedInAdmin(t, sandbox.platformAdmin);
      const forbidden = await upload(platform.token, image, "image/png");
      expect(forbidden.status).toBe(403);
      expect(forbidden.json).toEqual(generalError("ForbiddenError"));
      expect(await currentLogoUrl(token)).toBe(logoUrl);
    });
  });

  it("404 LogoNotFoundError for an address that holds no logo", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-logo"]) {
      const result = await read(await fetch(`${t.authUrl}/integration/oauth2/logos/${id}`));
      expect(result.status).toBe(404);
      expect(result.json).toEqual(generalError("LogoNotFoundError"));
    }
  });
});
