// The restore drill (npm run test:ha, once per CI run): Cobro on the Patroni cluster of scripts/cluster.ts,
// whose leader archives its WAL to pgBackRest's repository. Charges, payments (simulate-payment) and their
// webhooks to a loopback receiver; a full backup; more of them while the worker is stopped (their deliveries
// wait); the instant noted; more after it; then an operator's `truncate charges cascade`. The cluster is
// restored to the instant into fresh data folders (npm run cluster:restore's path), Cobro starts on it with
// the same data folder (its sealed-secrets key), and: every charge, payment, event and pending delivery
// acknowledged before the instant is there, nothing after it, and the worker delivers the waiting events
// (their webhook ids unchanged), none of them twice and none delivered before the instant again.
// It prints the figures docs/operations.md quotes: backup and restore times, the database's size.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { clusterBackup, clusterDown, clusterLayout, clusterRestore, clusterUp, STANZA, type ClusterLayout } from "../../scripts/cluster.ts";
import { freePorts } from "../../scripts/free-ports.ts";
import type { StartedCobro } from "../../scripts/cobro-process.ts";
import { chargeBody } from "../helpers/charges.ts";
import { startCobroCluster, type ClusterIntegration, type CobroCluster } from "../helpers/cobro-cluster.ts";
import { parseMetricsText, sampleValue } from "../helpers/metrics-text.ts";
import { bearerCaller, postJson, read } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

// Its own ports (not npm run cluster:up's nor the failover tests'), so neither is disturbed.
const layout: ClusterLayout = clusterLayout(Number(process.env.COBRO_HA_RESTORE_PORT_BASE ?? 25700));

let dataDir: string;
let cobro: CobroCluster | undefined;
let receiver: WebhookReceiver;

beforeAll(async () => {
  await clusterUp(layout, { replace: true });
  dataDir = await mkdtemp(path.join(os.tmpdir(), "cobro-restore-test-"));
  receiver = await startWebhookReceiver();
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  await cobro?.close().catch(() => undefined);
  await clusterDown(layout);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 120_000);

interface Acknowledged {
  charges: Array<{ referenceId: string; amount: number; cvu: string }>;
  payments: Array<{ transactionId: string; amount: number }>;
}

/** `count` charges, a payment on every other one; each recorded once the API answered it. */
async function load(integration: ClusterIntegration, count: number, into: Acknowledged): Promise<void> {
  for (let n = 0; n < count; n++) {
    const referenceId = uniqueRef("PITR");
    const amount = 1000 + n * 100;
    const created = await integration.merchantCall("POST", "/payment-request", chargeBody({ referenceId, amount }));
    expect(created.status, created.text).toBe(201);
    into.charges.push({ referenceId, amount, cvu: created.json.CVU });
    if (n % 2 === 1) continue;
    const paid = await integration.adminCall("POST", "/my-integration/simulate-payment", {
      externalAccountCvu: "0000003100000000000017",
      externalAccountCuil: "20301234563",
      externalAccountName: "Juan Pérez",
      cvu: created.json.CVU,
      amount: 300,
    });
    expect(paid.status, paid.text).toBe(200);
    into.payments.push({ transactionId: paid.json.idTransaccion, amount: 300 });
  }
}

/** Events whose delivery is not settled (delivered, or not sent for want of a subscription). */
async function unsettledEvents(database: CobroCluster["database"]): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    select e.id from events e left join event_deliveries d on d.event_id = e.id
     where d.status is null or d.status not in ('delivered', 'not_sent')`.execute(database.db);
  return rows.rows.map((row) => row.id);
}

async function waitUntilSettled(database: CobroCluster["database"]): Promise<void> {
  const deadline = Date.now() + 90_000;
  let left = await unsettledEvents(database);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = await unsettledEvents(database);
  }
  expect(left, "events not delivered within 90 s").toEqual([]);
}

/** The worker's backup gauges, as Prometheus would scrape them. */
async function scrapeBackupGauges(port: number) {
  const samples = parseMetricsText(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
  return {
    failures: sampleValue(samples, "cobro_metrics_sample_failures_total", { sampler: "backups" }),
    fullAge: sampleValue(samples, "cobro_backup_age_seconds", { type: "full" }),
    archiveFailing: sampleValue(samples, "cobro_wal_archive_failing"),
    archivePending: sampleValue(samples, "cobro_wal_archive_pending_segments"),
  };
}

const webhookIdsReceived = (path: string) => receiver.at(path).map((request) => String(request.headers["x-service-webhook-id"]));

it("restores the cluster to the instant before an operator's destructive statement: everything acknowledged before it is back, nothing after, and the worker delivers the waiting events once", async () => {
  const [metricsPort] = await freePorts(1);
  // The worker samples the backups' gauges (runtime/backup-gauges.ts) from the cluster's repository.
  const workerEnv = { COBRO_METRICS_PORT: String(metricsPort), COBRO_PGBACKREST_STANZA: STANZA, COBRO_PGBACKREST_CONFIG: layout.pgbackrestConfig };
  cobro = await startCobroCluster({}, { databaseUrl: layout.databaseUrl, dataDir });
  await cobro.startApi();
  let worker: StartedCobro = await cobro.startWorker(workerEnv);
  const integration = await cobro.integration();
  const hookPath = `/${uniqueRef("pitr").toLowerCase()}`;
  const registered = await integration.adminCall("POST", "/my-integration/urls", { url: receiver.url(hookPath), urlType: "webhook" });
  expect(registered.status, registered.text).toBe(201);
  const testWebhooks = new Set(webhookIdsReceived(hookPath));

  // Before the backup, delivered at once.
  const before: Acknowledged = { charges: [], payments: [] };
  await load(integration, 10, before);
  await waitUntilSettled(cobro.database);
  const deliveredBeforeBackup = webhookIdsReceived(hookPath).filter((id) => !testWebhooks.has(id));
  expect(deliveredBeforeBackup.length).toBeGreaterThan(0);

  const backupStarted = Date.now();
  const backup = await clusterBackup(layout, "full");
  const backupSeconds = (Date.now() - backupStarted) / 1000;
  // Scraped after the backup: the repository's answer is reused for a minute.
  const afterBackup = await scrapeBackupGauges(metricsPort!);
  expect(afterBackup.failures, "the backups sampler failed").toBeUndefined();
  expect(afterBackup.fullAge).toBeGreaterThanOrEqual(0);
  expect(afterBackup.fullAge).toBeLessThan(600);
  expect(afterBackup.archiveFailing).toBe(0);

  // After the backup, with the worker stopped: these events' deliveries wait in the queue at the instant.
  worker.child.kill("SIGTERM");
  await worker.exited;
  await load(integration, 10, before);
  const eventsAtInstant = (await cobro.database.db.selectFrom("events").select(["id", "type"]).orderBy("id").execute()).map((event) => event.id);
  const pendingAtInstant = await unsettledEvents(cobro.database);
  expect(pendingAtInstant.length).toBeGreaterThan(0);
  // pgBackRest keeps the backup's stop time in whole seconds and restores only to an instant a second past
  // it (cluster:restore refuses sooner): on a fast machine the load above takes less than that.
  await expect
    .poll(async () => (await sql<{ now: Date }>`select clock_timestamp() as now`.execute(cobro!.database.db)).rows[0]!.now.getTime(), {
      timeout: 5_000,
      interval: 50,
    })
    .toBeGreaterThanOrEqual(backup.stoppedAt.getTime() + 1_000);
  const { instant, databaseBytes } =
    // In milliseconds (a Date's precision), rounded up so that every commit before it is kept.
    (
      await sql<{ instant: Date; databaseBytes: string }>`
      select date_trunc('milliseconds', clock_timestamp()) + interval '1 millisecond' as instant,
             pg_database_size(current_database()) as "databaseBytes"`.execute(cobro.database.db)
    ).rows[0]!;
  await new Promise((resolve) => setTimeout(resolve, 10));

  // After the instant: acknowledged too, and lost by the restore on purpose.
  const after: Acknowledged = { charges: [], payments: [] };
  await load(integration, 4, after);
  // The operator's mistake, then the WAL that holds it archived (what the restore replays up to the instant).
  await sql`truncate charges cascade`.execute(cobro.database.db);
  expect(Number((await sql<{ n: string }>`select count(*) as n from charges`.execute(cobro.database.db)).rows[0]!.n)).toBe(0);
  const switched = (await sql<{ segment: string }>`select pg_walfile_name(pg_switch_wal()) as segment`.execute(cobro.database.db)).rows[0]!.segment;
  const archiveDeadline = Date.now() + 60_000;
  for (;;) {
    const archived = (await sql<{ last: string | null }>`select last_archived_wal as last from pg_stat_archiver`.execute(cobro.database.db)).rows[0]!.last;
    if (archived !== null && archived >= switched) break;
    if (Date.now() > archiveDeadline) throw new Error(`segment ${switched} not archived within 60 s (last ${archived})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await cobro.close();
  cobro = undefined;

  const restoreStarted = Date.now();
  await clusterRestore(layout, instant);
  const restoreSeconds = (Date.now() - restoreStarted) / 1000;
  console.log(
    [
      `restore drill: full backup ${backup.label} in ${backupSeconds.toFixed(1)} s (database ${(Number(databaseBytes) / 1024 / 1024).toFixed(1)} MiB, cluster ${(backup.databaseBytes / 1024 / 1024).toFixed(1)} MiB, ${(backup.repositoryBytes / 1024 / 1024).toFixed(1)} MiB stored)`,
      `  restored to ${instant.toISOString()} in ${restoreSeconds.toFixed(1)} s (fresh data folders, archive replayed, promoted, standby cloned)`,
      `  ${before.charges.length} charges, ${before.payments.length} payments, ${eventsAtInstant.length} events (${pendingAtInstant.length} waiting) before the instant; ${after.charges.length} charges and ${after.payments.length} payments after it`,
    ].join("\n"),
  );

  cobro = await startCobroCluster({}, { databaseUrl: layout.databaseUrl, dataDir });
  const db = cobro.database.db;
  const charges = await db.selectFrom("charges").select(["reference_id", "amount_cents"]).execute();
  expect(new Map(charges.map((charge) => [charge.reference_id, Number(charge.amount_cents)]))).toEqual(
    new Map(before.charges.map((charge) => [charge.referenceId, charge.amount * 100])),
  );
  const transfers = await db.selectFrom("transfers").select(["transaction_id", "amount_cents"]).execute();
  expect(new Map(transfers.map((transfer) => [transfer.transaction_id, Number(transfer.amount_cents)]))).toEqual(
    new Map(before.payments.map((payment) => [payment.transactionId, payment.amount * 100])),
  );
  expect((await db.selectFrom("events").select("id").orderBy("id").execute()).map((event) => event.id)).toEqual(eventsAtInstant);
  expect((await unsettledEvents(cobro.database)).sort()).toEqual([...pendingAtInstant].sort());

  // Cobro serves the restored database, and its worker resumes the restored queue.
  await cobro.startApi();
  worker = await cobro.startWorker(workerEnv);
  // The restored cluster archives again (its new timeline) and still sees the backup it came from.
  const afterRestore = await scrapeBackupGauges(metricsPort!);
  expect(afterRestore.failures, "the backups sampler failed").toBeUndefined();
  expect(afterRestore.fullAge).toBeGreaterThanOrEqual(0);
  expect(afterRestore.archiveFailing).toBe(0);
  // Signed in again: this Cobro listens on other ports, which its tokens name (a real restore keeps the URLs).
  const login = await read(await postJson(`${cobro.authUrl}/integration/admin/login`, integration.sandbox.integrationAdmin));
  expect(login.status, login.text).toBe(200);
  const tokens = await bearerCaller(cobro.adminUrl, () => login.json.idToken)("POST", "/my-integration/test-tokens");
  expect(tokens.status, tokens.text).toBe(200);
  const charge = await bearerCaller(cobro.integrationUrl, () => tokens.json.idToken)("GET", `/payment-request/${before.charges[0]!.referenceId}`);
  expect(charge.status, charge.text).toBe(200);
  await waitUntilSettled(cobro.database);
  const received = webhookIdsReceived(hookPath).filter((id) => !testWebhooks.has(id));
  const times = new Map<string, number>();
  for (const id of received) times.set(id, (times.get(id) ?? 0) + 1);
  // Each waiting event received once, under its own id; none of those delivered before the instant again.
  expect(pendingAtInstant.filter((id) => times.get(id) !== 1)).toEqual([]);
  expect(deliveredBeforeBackup.filter((id) => times.get(id) !== 1)).toEqual([]);
  expect([...times.keys()].filter((id) => !eventsAtInstant.includes(id))).toEqual([]);
}, 300_000);
