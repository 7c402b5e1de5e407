// Integration logos: an uploaded image is judged by its bytes (PNG, JPEG or WEBP; never SVG), refused
// when too big in bytes or pixels, scaled to 512 px on its longest side, re-encoded as WEBP and kept in
// the database, from which every process serves it at the integration's `logoUrl`.
import type { Metadata } from "sharp";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError } from "../errors.ts";
import { isUuid } from "../ids.ts";

/**
 * sharp, loaded on the first logo: it maps libvips and its allocator into the process (about 20 MB of
 * resident memory), which an API process that never receives a logo has no use for.
 */
let loadedSharp: Promise<typeof import("sharp")> | undefined;
async function imageLibrary() {
  loadedSharp ??= import("sharp");
  return (await loadedSharp).default;
}

export const MAX_LOGO_BYTES = 5 * 1024 * 1024;
/** 4096 × 4096: far more than a logo needs, and a bound on the memory one upload may take to decode. */
const MAX_LOGO_PIXELS = 4096 * 4096;
const LOGO_SIDE = 512;
const LOGO_MEDIA_TYPE = "image/webp";

type AcceptedFormat = "png" | "jpeg" | "webp";

/** The format by its magic bytes; "svg" for markup (XML or an <svg> element), null when unknown. */
function formatOf(bytes: Buffer): AcceptedFormat | "svg" | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  if (bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP") return "webp";
  const head = bytes
    .subarray(0, 1024)
    .toString("utf8")
    .replace(/^\uFEFF/, "")
    .trimStart()
    .toLowerCase();
  if (head.startsWith("<?xml") || head.startsWith("<svg") || head.startsWith("<!doctype svg") || (head.startsWith("<!--") && head.includes("<svg")))
    return "svg";
  return null;
}

const unsupported = (what: string) => new DomainError("UnsupportedMediaTypeError", `${what}: the logo must be a PNG, JPEG or WEBP image`);
const invalid = (why: string) => new DomainError("InvalidImageError", why);

/** The logo as it is stored: checked, scaled down to 512 px on its longest side, re-encoded as WEBP. */
export async function normalizeLogo(bytes: Buffer): Promise<{ content: Buffer; width: number; height: number }> {
  if (bytes.length > MAX_LOGO_BYTES) throw new DomainError("PayloadTooLarge", `The logo is larger than ${MAX_LOGO_BYTES} bytes`);
  const format = formatOf(bytes);
  if (format === "svg") throw unsupported("SVG is not accepted");
  // limitInputPixels makes sharp refuse a decompression bomb from its header, before decoding it.
  const sharp = await imageLibrary();
  const image = sharp(bytes, { limitInputPixels: MAX_LOGO_PIXELS, failOn: "error" });
  let metadata: Metadata;
  try {
    metadata = await image.metadata();
  } catch {
    throw invalid("The logo is not a readable image");
  }
  if (format === null) throw unsupported(`${metadata.format.toUpperCase()} is not accepted`);
  if (metadata.width * metadata.height > MAX_LOGO_PIXELS) {
    throw invalid(`The logo is ${metadata.width} × ${metadata.height} pixels; at most ${MAX_LOGO_PIXELS} pixels are accepted`);
  }
  try {
    const { data, info } = await image
      .rotate() // applies the EXIF orientation before the metadata is dropped
      .resize(LOGO_SIDE, LOGO_SIDE, { fit: "inside", withoutEnlargement: true })
      .webp({ quality: 90 })
      .toBuffer({ resolveWithObject: true });
    return { content: data, width: info.width, height: info.height };
  } catch {
    throw invalid("The logo could not be decoded");
  }
}

/** Replaces the integration's logo and points its `logoUrl` at the new one, in one transaction. */
export async function replaceIntegrationLogo(
  db: Kysely<Database>,
  integrationClientId: string,
  bytes: Buffer,
  logosBaseUrl: string,
): Promise<{ logoUrl: string }> {
  const logo = await normalizeLogo(bytes);
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom("integration_logos").where("integration_client_id", "=", integrationClientId).execute();
    const { id } = await trx
      .insertInto("integration_logos")
      .values({ integration_client_id: integrationClientId, media_type: LOGO_MEDIA_TYPE, content: logo.content, width: logo.width, height: logo.height })
      .returning("id")
      .executeTakeFirstOrThrow();
    const logoUrl = `${logosBaseUrl}/${id}`;
    await trx.updateTable("integration_clients").set({ logo_url: logoUrl }).where("id", "=", integrationClientId).execute();
    return { logoUrl };
  });
}

/** A stored logo; its ETag is its id, since the image at an id never changes. */
export async function integrationLogoById(db: Kysely<Database>, logoId: string): Promise<{ content: Buffer; mediaType: string; etag: string }> {
  const notFound = () => new DomainError("LogoNotFoundError", "No logo at this address");
  if (!isUuid(logoId)) throw notFound();
  const logo = await db.selectFrom("integration_logos").select(["content", "media_type"]).where("id", "=", logoId).executeTakeFirst();
  if (!logo) throw notFound();
  return { content: logo.content, mediaType: logo.media_type, etag: `"${logoId}"` };
}
