// `cobro login` and `cobro logout`: the admin sign-in of the Auth API, its refresh token kept in the profile.
import { createInterface } from "node:readline";
import { httpStatusOf } from "../errors.js";
import type { Command } from "./command.js";
import { deleteProfile, profilePath, readProfile, writeProfile } from "./config.js";
import { CliError } from "./output.js";
import { endpointsOf } from "./session.js";

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

/** A question at the terminal; `hidden` does not echo what is typed (a password). */
function ask(question: string, hidden = false): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  if (hidden) {
    const write = (terminal as unknown as { _writeToOutput(text: string): void })._writeToOutput.bind(terminal);
    (terminal as unknown as { _writeToOutput(text: string): void })._writeToOutput = (text) => write(text.startsWith(question) ? text : "");
  }
  return new Promise((resolve) =>
    terminal.question(question, (answer) => {
      if (hidden) process.stderr.write("\n");
      terminal.close();
      resolve(answer);
    }),
  );
}

export const loginCommands: Command[] = [
  {
    name: ["login"],
    summary: "Sign in as the integration admin and keep the session in the profile.",
    details:
      "The email comes from --email or $COBRO_EMAIL, else a prompt; the password from $COBRO_PASSWORD, else\n" +
      'stdin when it is not a terminal (`printf %s "$PASS" | cobro login --email …`), else a hidden prompt.\n' +
      "The refresh token is stored in $XDG_CONFIG_HOME/cobro/<profile>.json (~/.config/cobro without\n" +
      "XDG_CONFIG_HOME), readable by you alone (0600). The session lasts 30 days from the sign-in.",
    options: { email: { type: "string" } },
    optionHelp: { email: "the integration admin's email" },
    async run({ values, out, profile, session }) {
      const previous = readProfile(profile);
      const endpoints = endpointsOf(values, previous);
      const email = (values.email as string | undefined) ?? process.env.COBRO_EMAIL ?? (process.stdin.isTTY ? await ask("Email: ") : undefined);
      if (!email) throw new CliError("usage", "--email is required when stdin is not a terminal");
      const password = process.env.COBRO_PASSWORD ?? (process.stdin.isTTY ? await ask("Password: ", true) : await readStdin());
      if (!password) throw new CliError("usage", "no password: set COBRO_PASSWORD or give it on stdin");
      const signedIn = await session
        .authApiAt(endpoints.authUrl)
        .adminLogin({ adminLogin: { email, password } })
        .catch((error: unknown) => {
          // No sign-in route there: one --base-url at a service whose APIs each have their own port.
          if (httpStatusOf(error) === 404 && ((values["base-url"] as string | undefined) ?? process.env.COBRO_BASE_URL) !== undefined)
            throw new CliError(
              "wrong_address",
              `${endpoints.authUrl} has no Auth API: --base-url is one address that serves all three APIs (a proxy); for APIs on their own ports (npm start: 3000, 3001, 3002) give --integration-url, --auth-url and --admin-url`,
            );
          throw error;
        });
      if (signedIn.passwordChangeRequired) {
        throw new CliError("password_change_required", "this is a temporary password: change it in the portal first, then sign in again");
      }
      // A session this profile held before is ended, not left behind.
      if (previous?.refreshToken) {
        await session
          .authApiAt(previous.authUrl)
          .adminLogout({ adminRefresh: { refreshToken: previous.refreshToken } })
          .catch(() => undefined);
      }
      writeProfile(profile, {
        ...endpoints,
        email,
        refreshToken: signedIn.refreshToken,
        idToken: signedIn.idToken,
        idTokenExpiresAt: Date.now() + signedIn.expiresIn * 1000,
      });
      const result = { profile, email, ...endpoints, configFile: profilePath(profile) };
      if (out.json) out.document(result);
      else out.line(`Signed in as ${out.paint(email, "bold")} (profile ${profile}, Admin API ${endpoints.adminUrl}); session stored in ${result.configFile}`);
    },
  },
  {
    name: ["logout"],
    summary: "Sign out: revoke the profile's session and delete what the profile stored.",
    async run({ out, profile, session }) {
      const stored = session.signedIn();
      let revoked = true;
      try {
        await session.authApiAt(stored.authUrl).adminLogout({ adminRefresh: { refreshToken: stored.refreshToken } });
      } catch (error) {
        // A session that already ended (expired, revoked elsewhere) is gone either way.
        if (httpStatusOf(error) !== 401) throw error;
        revoked = false;
      }
      deleteProfile(profile);
      if (out.json) out.document({ profile, signedOut: true, revoked });
      else out.line(`Signed out of profile ${profile}${revoked ? "" : " (the session had already ended)"}`);
    },
  },
];
