// `npm run restore -- <backup folder> [--replace]`: with Cobro stopped, brings the embedded PostgreSQL of
// COBRO_DATA_DIR back from a folder of `npm run backup`. A data folder that already holds a database is
// refused unless --replace, which moves that database aside (<COBRO_DATA_DIR>/replaced-<time>/) rather
// than deleting it. The restored server is started once here, so that it replays the backup's WAL and
// any problem shows now rather than at the next `npm start`.
import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../runtime/config.ts";
import { createLogger } from "../runtime/logger.ts";
import { SANDBOX_KEY_FILE, secretKeySource } from "../runtime/secret-key-file.ts";
import { displayPath, startEmbeddedPostgres } from "../db/embedded-postgres.ts";
import { megabytes, placeBackup } from "../db/embedded-backup.ts";
import { fail, failBackupCommand } from "./operator-database.ts";

const USAGE = "usage: npm run restore -- <backup folder> [--replace]";

await restore();

async function restore(): Promise<void> {
  let backupDir: string;
  let replace: boolean;
  try {
    const { values, positionals } = parseArgs({ options: { replace: { type: "boolean", default: false } }, allowPositionals: true, strict: true });
    if (positionals.length !== 1) fail(USAGE);
    backupDir = path.resolve(positionals[0]!);
    replace = values.replace;
  } catch (error) {
    fail(`${(error as Error).message}; ${USAGE}`);
  }
  try {
    const config = loadConfig(process.env, []);
    if (config.databaseUrl !== undefined)
      fail("DATABASE_URL is set: npm run restore brings back the embedded PostgreSQL of COBRO_DATA_DIR; restore a database of DATABASE_URL with its own tools");
    const began = performance.now();
    const shown = displayPath(config.dataDir);
    const { manifest, replaced } = placeBackup(backupDir, config.dataDir, { replace });
    if (replaced !== undefined)
      process.stdout.write(`the database that was in ${shown} is now in ${displayPath(replaced)} (delete it once the restore is checked)\n`);
    // PostgreSQL replays the backup's WAL from its checkpoint to its stop point, then stops cleanly.
    const logger = createLogger(config.logLevel === "info" ? "warn" : config.logLevel, undefined, config.logFormat);
    const server = await startEmbeddedPostgres({ dataDir: config.dataDir, logger });
    await server.stop();
    const seconds = (performance.now() - began) / 1000;
    process.stdout.write(
      `restored ${shown} from ${displayPath(backupDir)} (${megabytes(manifest.bytes)}, ${seconds.toFixed(1)} s): the database as of ${manifest.consistentAt}\n`,
    );
    const keySource = secretKeySource(config);
    if (config.secretKeyring === undefined && !existsSync(path.join(config.dataDir, SANDBOX_KEY_FILE)))
      process.stdout.write(
        `the sealed-secrets key is not here: before npm start, put the key kept apart from the backup in ${keySource} (mode 600), or set COBRO_SECRET_KEY\n`,
      );
    else process.stdout.write(`npm start will open the sealed secrets with ${keySource}: it must be the key of the backup's time\n`);
  } catch (error) {
    failBackupCommand(error, "restore");
  }
}
