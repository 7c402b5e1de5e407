// A real SMTP server on 127.0.0.1 for tests (the `smtp-server` package): it checks the credentials of
// its URL, records every message it accepts (envelope, raw text, and the decoded subject, text and HTML
// parts), and refuses the recipients it is told to, with the reply it is told (a 550 for good, a 450 for
// "later"), as many times as it is told.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
  /** The decoded text/plain part. */
  text: string;
  /** The decoded text/html part. */
  html: string;
  /** Header names in lower case, unfolded, still encoded. */
  headers: Map<string, string>;
}

export interface Refusal {
  code: number;
  message: string;
  /** How many attempts are refused (default: every one). */
  times?: number;
}

export interface TestSmtpServer {
  /** `smtp://user:pass@127.0.0.1:<port>`: what COBRO_SMTP_URL is set to. */
  url: string;
  mails: ReceivedMail[];
  /** Mails whose envelope goes to `address`. */
  to(address: string): ReceivedMail[];
  /** Refuses `address` at RCPT TO with the reply given. */
  refuse(address: string, refusal: Refusal): void;
  /** Waits until `count` mails to `address` have arrived. */
  waitFor(address: string, count?: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

const USER = "cobro";
const PASSWORD = "smtp-test-password";

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const mails: ReceivedMail[] = [];
  const refusals = new Map<string, Refusal>();
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) callback(null, { user: USER });
      else callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(address, _session, callback) {
      const refusal = refusals.get(address.address.toLowerCase());
      if (refusal && (refusal.times === undefined || refusal.times > 0)) {
        if (refusal.times !== undefined) refusal.times -= 1;
        callback(Object.assign(new Error(refusal.message), { responseCode: refusal.code }));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        mails.push({ from, to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()), raw, ...readMessage(raw) });
        callback(null, "Message queued");
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  const to = (address: string) => mails.filter((mail) => mail.to.includes(address.toLowerCase()));
  return {
    url: `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`,
    mails,
    to,
    refuse: (address, refusal) => void refusals.set(address.toLowerCase(), { ...refusal }),
    waitFor: async (address, count = 1, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs;
      while (to(address).length < count) {
        if (Date.now() > deadline) throw new Error(`the SMTP server got ${to(address).length} of ${count} mails to ${address} in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return to(address);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The subject and the text and HTML parts of a message as nodemailer writes one (multipart/alternative). */
function readMessage(raw: string): Pick<ReceivedMail, "subject" | "text" | "html" | "headers"> {
  const { headers, body } = splitEntity(raw);
  const parts = new Map<string, string>();
  const boundary = /boundary="?([^";]+)"?/i.exec(headers.get("content-type") ?? "")?.[1];
  const entities = boundary ? body.split(`--${boundary}`).slice(1, -1) : [raw];
  for (const entity of entities) {
    const part = splitEntity(entity.replace(/^\r\n/, ""));
    const type = (part.headers.get("content-type") ?? "text/plain").split(";")[0]!.trim().toLowerCase();
    parts.set(type, decodeBody(part.body, part.headers.get("content-transfer-encoding") ?? "7bit"));
  }
  return { headers, subject: decodeWords(headers.get("subject") ?? ""), text: parts.get("text/plain") ?? "", html: parts.get("text/html") ?? "" };
}

function splitEntity(entity: string): { headers: Map<string, string>; body: string } {
  const end = entity.indexOf("\r\n\r\n");
  const head = end === -1 ? entity : entity.slice(0, end);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: end === -1 ? "" : entity.slice(end + 4) };
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    case "quoted-printable":
      return decodeQuotedPrintable(body.replace(/=\r\n/g, ""));
    default:
      return body;
  }
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const hex = text.slice(index + 1, index + 3);
    if (text[index] === "=" && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(text[index]!, "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) in a header, joined as the RFC says. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, "$1$2")
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_word, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === "B" ? Buffer.from(text, "base64").toString("utf8") : decodeQuotedPrintable(text.replace(/_/g, " ")),
    );
}
