// The CLI's stored state, per profile, in the user's config folder ($XDG_CONFIG_HOME/cobro or
// ~/.config/cobro): the folder is 0700 and every file 0600, since a profile holds a refresh token.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { CliError } from "./output.js";

export interface StoredProfile {
  adminUrl: string;
  authUrl: string;
  integrationUrl: string;
  email?: string;
  refreshToken?: string;
  idToken?: string;
  /** Milliseconds since the epoch. */
  idTokenExpiresAt?: number;
}

const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function checkProfileName(name: string): string {
  if (!PROFILE_NAME.test(name)) throw new CliError("usage", `invalid profile name "${name}": letters, digits, - and _ (at most 64)`);
  return name;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), ".config"), "cobro");
}

function ensureDir(): string {
  const dir = configDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

export const profilePath = (name: string): string => join(configDir(), `${name}.json`);
const cursorPath = (name: string): string => join(configDir(), `${name}.last-event-id`);

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Written whole to a new 0600 file and renamed over the old one: a reader never sees half a file. */
function writePrivate(path: string, text: string): void {
  ensureDir();
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}

export function readProfile(name: string): StoredProfile | undefined {
  const text = readText(profilePath(name));
  return text === undefined ? undefined : (JSON.parse(text) as StoredProfile);
}

export function writeProfile(name: string, profile: StoredProfile): void {
  writePrivate(profilePath(name), `${JSON.stringify(profile, null, 2)}\n`);
}

export function deleteProfile(name: string): void {
  rmSync(profilePath(name), { force: true });
  rmSync(cursorPath(name), { force: true });
}

/** The id of the last event `cobro listen` handled for this profile: where a restarted listener resumes. */
export function readCursor(name: string): string | undefined {
  return readText(cursorPath(name))?.trim() || undefined;
}

export function writeCursor(name: string, eventId: string | undefined): void {
  if (eventId === undefined) rmSync(cursorPath(name), { force: true });
  else writePrivate(cursorPath(name), `${eventId}\n`);
}

const LOCK_STALE_MS = 30_000;

/**
 * Runs `work` holding the profile's lock file. Each refresh token works once, and presenting a used one
 * ends the session: two commands of one profile (a running `listen` and a `trigger`) must not refresh at once.
 */
export async function withProfileLock<T>(name: string, work: () => Promise<T>): Promise<T> {
  const lock = join(ensureDir(), `${name}.lock`);
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx", 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // A lock left by a killed process.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
      if (Date.now() > deadline) throw new CliError("profile_locked", `another cobro command holds ${lock}; delete it if none runs`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { force: true });
  }
}
