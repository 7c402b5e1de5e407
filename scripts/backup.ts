// `npm run backup -- <folder>`: a consistent copy of the embedded PostgreSQL of COBRO_DATA_DIR into a new
// folder, taken while Cobro runs (or, with Cobro stopped, from a server started for the copy). The
// sealed-secrets key is left out on purpose: it is kept apart (docs/operations.md, Backup and restore).
import path from "node:path";
import { loadConfig } from "../runtime/config.ts";
import { createLogger } from "../runtime/logger.ts";
import { secretKeySource } from "../runtime/secret-key-file.ts";
import { displayPath, runningEmbeddedConnectionString, startEmbeddedPostgres } from "../db/embedded-postgres.ts";
import { backupEmbeddedPostgres, checkBackupTarget, megabytes } from "../db/embedded-backup.ts";
import { fail, failBackupCommand } from "./operator-database.ts";

const USAGE = "usage: npm run backup -- <new folder for the backup>";

const args = process.argv.slice(2);
if (args.length !== 1 || args[0]!.startsWith("-")) fail(USAGE);
const target = path.resolve(args[0]!);

try {
  const config = loadConfig(process.env, []);
  if (config.databaseUrl !== undefined)
    fail("DATABASE_URL is set: npm run backup copies the embedded PostgreSQL of COBRO_DATA_DIR; back up a database of DATABASE_URL with its own tools");
  checkBackupTarget(config.dataDir, target); // before a server is started for nothing
  const shown = displayPath(config.dataDir);
  const began = performance.now();
  const running = runningEmbeddedConnectionString(config.dataDir);
  // Stopped, the copy needs a server all the same: one started for it holds the folder meanwhile.
  const started = running
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: config.dataDir,
        logger: createLogger(config.logLevel === "info" ? "warn" : config.logLevel, undefined, config.logFormat),
      });
  process.stdout.write(`backing up the embedded PostgreSQL of ${shown} (Cobro ${running ? "running" : "stopped"}) to ${displayPath(target)}\n`);
  try {
    const manifest = await backupEmbeddedPostgres(running ?? started!.connectionString, config.dataDir, target);
    const seconds = (performance.now() - began) / 1000;
    process.stdout.write(
      `backup written: ${displayPath(target)} (${megabytes(manifest.bytes)}, ${manifest.files} files, ${seconds.toFixed(1)} s), the database as of ${manifest.consistentAt}\n`,
    );
    process.stdout.write(
      `the sealed-secrets key is not in the backup: keep ${secretKeySource(config)} apart from it; a restore needs it (docs/operations.md)\n`,
    );
  } finally {
    await started?.stop();
  }
} catch (error) {
  failBackupCommand(error, "backup"); // the unfinished copy is already removed
}
