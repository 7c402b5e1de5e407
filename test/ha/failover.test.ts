// Cobro on the Patroni cluster of scripts/cluster.ts (npm run test:ha, not part of npm test): two API
// processes and two workers take a load of creates, bulks and simulated payments with webhooks to a
// loopback receiver while a node's PostgreSQL is killed (SIGKILL). Afterwards, from the clients' own
// records: every create and payment answered 2xx exists once with its amounts, every payment's event
// reached the receiver, none for a payment that does not exist, the CVU pool and money invariants hold,
// and no request got anything but its answer or the documented 503 with Retry-After (never a 500, never a
// hang). It prints the seconds from the kill to the first create answered 201 and the 503s.
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  clusterDown,
  clusterLayout,
  clusterMembers,
  clusterProcesses,
  clusterUp,
  postmasterPid,
  restartNode,
  waitForHealthy,
  type ClusterLayout,
} from "../../scripts/cluster.ts";
import { chargeBody } from "../helpers/charges.ts";
import { startCobroCluster, type ClusterIntegration, type CobroCluster } from "../helpers/cobro-cluster.ts";
import { ledgerViolations, NO_LEDGER_VIOLATIONS } from "../helpers/ledger-invariants.ts";
import { bearerCaller, type ApiCall } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

// Its own ports (not npm run cluster:up's), so a cluster someone started by hand is left alone.
const layout: ClusterLayout = clusterLayout(Number(process.env.COBRO_HA_PORT_BASE ?? 25500));
const PAYERS = ["20301234563", "27111111117", "20222222223", "20333333334"];
/** Longer than any answer may take: a request still open then is a hang. */
const REQUEST_LIMIT_MS = 30_000;

let cluster: CobroCluster;
let receiver: WebhookReceiver;
let apis: Array<{ integrationUrl: string; adminUrl: string }>;
const testWebhookIds = new Set<string>();

interface Tenant {
  integration: ClusterIntegration;
  merchantCalls: ApiCall[];
  adminCalls: ApiCall[];
}

beforeAll(async () => {
  // Its own ports: a cluster still running there is what an earlier run of these tests left.
  await clusterUp(layout, { replace: true });
  cluster = await startCobroCluster({}, { databaseUrl: layout.databaseUrl });
  receiver = await startWebhookReceiver();
  const [, second] = await Promise.all([cluster.startApi(), cluster.startExtraApi()]);
  await Promise.all([cluster.startWorker(), cluster.startWorker()]);
  apis = [{ integrationUrl: cluster.integrationUrl, adminUrl: cluster.adminUrl }, second];
}, 240_000);

afterAll(async () => {
  await receiver?.close();
  await cluster?.close().catch(() => undefined);
  await clusterDown(layout);
}, 120_000);

interface Ledger {
  charges: Array<{ tenant: Tenant; referenceId: string; cvu: string; amount: number; payer?: string }>;
  payments: Array<{ transactionId: string; amount: number; cvu: string }>;
  statuses: Map<string, number>;
  unavailable: Array<{ what: string; at: number; retryAfter: string | null }>;
  wrong: string[];
  /** Answered 2xx: when it was sent and when the answer came. */
  successes: Array<{ what: string; sentAt: number; at: number }>;
}

/** Two fresh integrations (each case its own: a merchant's CVU pool fills up), with webhooks to the receiver. */
async function newTenants(on = apis): Promise<Tenant[]> {
  const tenants: Tenant[] = [];
  for (let n = 0; n < 2; n++) {
    const integration = await cluster.integration();
    const path = `/${uniqueRef("ha").toLowerCase()}`;
    const registered = await integration.adminCall("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" });
    expect(registered.status, registered.text).toBe(201);
    // Registering sends the URL a test webhook (no event behind it), answered before the 201.
    for (const request of receiver.at(path)) testWebhookIds.add(String(request.headers["x-service-webhook-id"]));
    tenants.push({
      integration,
      merchantCalls: on.map((api) => bearerCaller(api.integrationUrl, integration.merchantToken)),
      adminCalls: on.map((api) => bearerCaller(api.adminUrl, () => integration.adminToken)),
    });
  }
  return tenants;
}

/** Runs the load until `stop()` resolves; every answer is recorded. */
async function runLoad(ledger: Ledger, tenants: Tenant[], stop: Promise<void>): Promise<void> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const pick = <T>(items: T[]): T => items[randomInt(items.length)]!;
  const call = async (what: string, caller: ApiCall, method: string, path: string, body: object, ok: number[]) => {
    const started = Date.now();
    let result: Awaited<ReturnType<ApiCall>> | undefined;
    try {
      result = await Promise.race([
        caller(method, path, body),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${REQUEST_LIMIT_MS} ms`)), REQUEST_LIMIT_MS)),
      ]);
    } catch (error) {
      ledger.wrong.push(`${what}: ${(error as Error).message}`);
      return undefined;
    }
    ledger.statuses.set(`${what} ${result.status}`, (ledger.statuses.get(`${what} ${result.status}`) ?? 0) + 1);
    if (result.status === 503) {
      ledger.unavailable.push({ what, at: started, retryAfter: result.headers.get("retry-after") });
      if (result.json?.code !== "ServiceUnavailableError") ledger.wrong.push(`${what}: 503 ${result.text.slice(0, 200)}`);
      return undefined;
    }
    // A merchant's pool of CVUs may fill up under this load: the documented refusal, not a fault.
    if (result.status === 400 && result.json?.code === "InsufficientActiveAccountsError") return undefined;
    if (!ok.includes(result.status)) {
      // A 500's id finds what the server logged of it.
      const logged = result.status === 500 && typeof result.json?.id === "string" ? cluster.logLines(result.json.id) : [];
      ledger.wrong.push([`${what}: ${result.status} ${result.text.slice(0, 300)}`, ...logged.map((line) => line.slice(0, 2000))].join("\n"));
      return undefined;
    }
    ledger.successes.push({ what, sentAt: started, at: Date.now() });
    return result;
  };
  const operations: Array<[number, (tenant: Tenant) => Promise<void>]> = [
    [
      4,
      async (tenant) => {
        const referenceId = uniqueRef("HA");
        const amount = randomInt(10, 50) * 100;
        const created = await call("create", pick(tenant.merchantCalls), "POST", "/payment-request", chargeBody({ referenceId, amount }), [201]);
        if (created) ledger.charges.push({ tenant, referenceId, cvu: created.json.CVU, amount });
      },
    ],
    [
      1,
      async (tenant) => {
        const items = PAYERS.map((payer) => chargeBody({ referenceId: uniqueRef("HAB"), amount: 500, customer: { name: "Juan Pérez", taxDocument: payer } }));
        const created = await call("bulk", pick(tenant.merchantCalls), "POST", "/payment-request/bulk", { paymentRequests: items }, [201]);
        if (created) {
          for (const item of items)
            ledger.charges.push({ tenant, referenceId: item.referenceId, cvu: created.json.sharedCvu, amount: 500, payer: item.customer.taxDocument });
        }
      },
    ],
    [
      4,
      async (tenant) => {
        const mine = ledger.charges.filter((charge) => charge.tenant === tenant);
        const charge = mine.length > 0 ? pick(mine) : undefined;
        if (!charge) return;
        const amount = randomInt(1, 7) * 100;
        const paid = await call(
          "simulate",
          pick(tenant.adminCalls),
          "POST",
          "/my-integration/simulate-payment",
          {
            externalAccountCvu: "0000003100000000000017",
            externalAccountCuil: charge.payer ?? pick(PAYERS),
            externalAccountName: "Juan Pérez",
            cvu: charge.cvu,
            amount,
          },
          [200, 422],
        );
        if (paid?.status === 200) ledger.payments.push({ transactionId: paid.json.idTransaccion, amount, cvu: charge.cvu });
      },
    ],
  ];
  const weighted = operations.flatMap(([weight, operation]) => Array<typeof operation>(weight).fill(operation));
  const actor = async (tenant: Tenant) => {
    while (!stopped) await pick(weighted)(tenant);
  };
  await Promise.all(tenants.flatMap((tenant) => [actor(tenant), actor(tenant), actor(tenant)]));
}

function newLedger(): Ledger {
  return { charges: [], payments: [], statuses: new Map(), unavailable: [], wrong: [], successes: [] };
}

/** Every 2xx of the ledger is in the database once with its amounts; events and invariants as the header says. */
async function checkLedger(ledger: Ledger): Promise<void> {
  const db = cluster.database.db;
  const references = ledger.charges.map((charge) => charge.referenceId);
  const stored = await db.selectFrom("charges").select(["reference_id", "amount_cents"]).where("reference_id", "in", references).execute();
  const byReference = new Map<string, number[]>();
  for (const row of stored) byReference.set(row.reference_id, [...(byReference.get(row.reference_id) ?? []), Number(row.amount_cents)]);
  const chargesLost = ledger.charges
    .map(({ tenant: _, ...charge }) => charge)
    .filter((charge) => {
      const amounts = byReference.get(charge.referenceId) ?? [];
      return amounts.length !== 1 || amounts[0] !== charge.amount * 100;
    });
  expect(chargesLost, "acknowledged charges missing or changed").toEqual([]);

  const transactionIds = ledger.payments.map((payment) => payment.transactionId);
  const transfers =
    transactionIds.length === 0
      ? []
      : await db.selectFrom("transfers").select(["transaction_id", "amount_cents", "receiving_cvu"]).where("transaction_id", "in", transactionIds).execute();
  const transferByTransaction = new Map(transfers.map((row) => [row.transaction_id, row]));
  const paymentsLost = ledger.payments.filter((payment) => {
    const row = transferByTransaction.get(payment.transactionId);
    return !row || Number(row.amount_cents) !== payment.amount * 100 || row.receiving_cvu !== payment.cvu;
  });
  expect(paymentsLost, "acknowledged payments missing or changed").toEqual([]);

  expect(ledger.wrong, "answers other than the operation's or a 503").toEqual([]);
  expect(
    ledger.unavailable.filter((refused) => refused.retryAfter === null),
    "503s without Retry-After",
  ).toEqual([]);

  // Every event the load made is settled: delivered (the receiver answers 200), or not sent because the
  // integration does not subscribe to its type; what is not, with its job, if not.
  const undelivered = () =>
    sql<Record<string, unknown>>`
      select e.id, d.status, d.attempts_made, d.next_attempt_at,
             (select json_agg(json_build_object('attempt', a.attempt, 'error', a.error, 'status', a.response_status, 'finished', a.finished_at is not null))
                from delivery_attempts a where a.event_id = e.id) as attempts,
             (select json_agg(json_build_object('id', j.id, 'run_at', j.run_at, 'attempts', j.attempts, 'locked_by', j.locked_by, 'locked_at', j.locked_at, 'last_error', left(j.last_error, 200)))
                from graphile_worker._private_jobs j where j.key = 'deliver-event:' || e.id::text) as jobs
        from events e left join event_deliveries d on d.event_id = e.id
       where d.status is null or d.status not in ('delivered', 'not_sent')`.execute(db);
  const settleDeadline = Date.now() + 90_000;
  let left = (await undelivered()).rows;
  while (left.length > 0 && Date.now() < settleDeadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    left = (await undelivered()).rows;
  }
  // With what the processes logged of each (an event's id is in its delivery's log lines), and what the
  // database's sessions are doing (a delivery that never ends waits on something).
  const sessions =
    left.length === 0
      ? []
      : (
          await sql<Record<string, unknown>>`
            select pid, application_name, state, wait_event_type, wait_event, xact_start, state_change, pg_blocking_pids(pid) as blocked_by, left(query, 300) as query
              from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`.execute(db)
        ).rows;
  expect(
    left.map((row) => {
      const jobIds = ((row.jobs ?? []) as Array<{ id: unknown }>).map((job) => `task ${job.id} `);
      const logged = [String(row.id), ...jobIds].flatMap((text) => cluster.logLines(text)).map((line) => line.slice(0, 2000));
      return { ...row, logged, sessions };
    }),
    "events not settled 90 s after the load",
  ).toEqual([]);
  // One payment_received event per transfer applied to a charge, each received at least once; nothing
  // received that is not an event in the database.
  const received = new Set(receiver.requests.map((request) => String(request.headers["x-service-webhook-id"])).filter((id) => !testWebhookIds.has(id)));
  const events = await db.selectFrom("events").select(["id", "charge_id", "type"]).execute();
  const eventIds = new Set(events.map((event) => event.id));
  expect(
    [...received].filter((id) => !eventIds.has(id)),
    "webhooks received of events the database does not have",
  ).toEqual([]);
  expect(
    events.filter((event) => event.type === "payment_request.payment_received" && !received.has(event.id)),
    "payment events never received",
  ).toEqual([]);
  const perCharge = await sql<{ charge_id: string; transfers: number; events: number }>`
    select t.charge_id, count(*)::int as transfers,
           (select count(*)::int from events e where e.charge_id = t.charge_id and e.type = 'payment_request.payment_received') as events
      from transfers t where t.charge_id is not null group by t.charge_id`.execute(db);
  expect(
    perCharge.rows.filter((row) => row.transfers !== row.events),
    "charges whose transfers and payment events differ in number",
  ).toEqual([]);
  expect(await ledgerViolations(db)).toEqual(NO_LEDGER_VIOLATIONS);
}

function summary(ledger: Ledger): string {
  return [...ledger.statuses]
    .sort()
    .map(([what, n]) => `${what}: ${n}`)
    .join(", ");
}

async function killPostgres(name: string): Promise<number> {
  const node = layout.nodes.find((candidate) => candidate.name === name)!;
  const pid = postmasterPid(node);
  if (pid === undefined) throw new Error(`${name}'s PostgreSQL is not running`);
  process.kill(pid, "SIGKILL");
  return Date.now();
}

/**
 * Runs the load, calls `kill` (which answers when it killed) after 5 s, and keeps the load on until creates
 * have succeeded again for 5 s (or 60 s pass without one); prints and answers the figures of the failover.
 */
async function failoverUnderLoad(what: string, kill: () => Promise<number>): Promise<{ ledger: Ledger; downtime?: number }> {
  const ledger = newLedger();
  let stopLoad!: () => void;
  const load = runLoad(ledger, await newTenants(), new Promise<void>((resolve) => (stopLoad = resolve)));
  await new Promise((resolve) => setTimeout(resolve, 5000));
  const beforeKill = ledger.successes.length;
  const killedAt = await kill();
  const deadline = killedAt + 60_000;
  let firstCreate: number | undefined;
  while (Date.now() < deadline) {
    // Sent after the kill: a create already in flight may have committed before it.
    firstCreate = ledger.successes.find((success) => success.what === "create" && success.sentAt > killedAt)?.at;
    if (firstCreate !== undefined && Date.now() > firstCreate + 5000) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  stopLoad();
  await load;
  const members = await clusterMembers(layout);
  const downtime = firstCreate === undefined ? undefined : (firstCreate - killedAt) / 1000;
  const refusedAfterKill = ledger.unavailable.filter((refused) => refused.at >= killedAt - REQUEST_LIMIT_MS).length;
  console.log(
    [
      `${what} after ${beforeKill} answered requests; members now ${members.map((member) => `${member.name} ${member.role} ${member.state}`).join(", ")}`,
      `  seconds from the kill to the first create sent after it and answered 201: ${downtime ?? "none within 60 s"}`,
      `  503 answers: ${ledger.unavailable.length} (${refusedAfterKill} around the kill); ${ledger.charges.length} charges and ${ledger.payments.length} payments acknowledged`,
      `  answers: ${summary(ledger)}`,
    ].join("\n"),
  );
  return { ledger, downtime };
}

/** What a node's Patroni logged about its PostgreSQL's crash (failing over, or starting it again in place), for a failure's message. */
function patroniDecisions(name: string): string {
  const log = readFileSync(path.join(layout.dir, `${name}.log`), "utf8").split("\n");
  return log
    .filter((line) => /crash|fail|start|promot|demot|lock|not running|healthiest|candidate/i.test(line))
    .slice(-25)
    .join("\n");
}

async function leaderName(): Promise<string | undefined> {
  return (await clusterMembers(layout)).find((member) => member.role === "leader")?.name;
}

it("loses nothing it acknowledged when the primary's PostgreSQL is killed mid-load, and serves again once Patroni promotes the standby", async () => {
  const { leader, standby } = await waitForHealthy(layout);
  const { ledger, downtime } = await failoverUnderLoad(`failover: killed ${leader}'s PostgreSQL`, () => killPostgres(leader));
  expect(downtime).toBeDefined();
  expect(await leaderName(), `the killed primary's Patroni decided:\n${patroniDecisions(leader)}`).toBe(standby);
  await checkLedger(ledger);
  // The old primary rejoins as the synchronous standby by itself (pg_rewind), ready for the next case.
  await waitForHealthy(layout, 90_000);
}, 300_000);

it("loses nothing when the primary's whole machine is lost (Patroni too): the standby takes over once the leader key expires, writes alone, and the node rejoins when it is back", async () => {
  const { leader, standby } = await waitForHealthy(layout);
  const { ledger, downtime } = await failoverUnderLoad(`machine lost: killed ${leader}'s Patroni and PostgreSQL`, async () => {
    // Both at once, as a machine that stops: no Patroni left to hand the leader key over.
    const node = layout.nodes.find((candidate) => candidate.name === leader)!;
    const postgres = postmasterPid(node);
    process.kill(clusterProcesses(layout)[leader]!, "SIGKILL");
    if (postgres !== undefined) process.kill(postgres, "SIGKILL");
    return Date.now();
  });
  try {
    expect(downtime).toBeDefined();
    // The standby led and wrote without a synchronous standby meanwhile (synchronous_mode, not strict).
    expect(await leaderName()).toBe(standby);
    await checkLedger(ledger);
  } finally {
    // Back whatever the checks found, so that the next cases start from two nodes.
    restartNode(layout, leader);
    await waitForHealthy(layout, 90_000);
  }
}, 300_000);

it("goes on writing when the standby's PostgreSQL is killed: Patroni drops it from synchronous replication until it is back", async () => {
  const { standby } = await waitForHealthy(layout);
  const ledger = newLedger();
  let stopLoad!: () => void;
  const load = runLoad(ledger, await newTenants(), new Promise<void>((resolve) => (stopLoad = resolve)));
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const killedAt = await killPostgres(standby);
  await new Promise((resolve) => setTimeout(resolve, 12_000));
  stopLoad();
  await load;
  const createsAfter = ledger.successes.filter((success) => success.what === "create" && success.at > killedAt).map((success) => success.at);
  let longestPause = 0;
  for (let n = 1; n < createsAfter.length; n++) longestPause = Math.max(longestPause, createsAfter[n]! - createsAfter[n - 1]!);
  if (createsAfter.length > 0) longestPause = Math.max(longestPause, createsAfter[0]! - killedAt);
  console.log(
    [
      `standby lost: killed ${standby}'s PostgreSQL; ${createsAfter.length} creates answered 201 in the 12 s after, longest pause ${(longestPause / 1000).toFixed(1)} s`,
      `  503 answers: ${ledger.unavailable.length}; answers: ${summary(ledger)}`,
    ].join("\n"),
  );
  expect(createsAfter.length).toBeGreaterThan(0);
  await checkLedger(ledger);
  await waitForHealthy(layout, 90_000);
}, 300_000);

it("serves four API processes through PgBouncer in transaction mode, their sessions' needs (LISTEN, migrations, the workers) going direct", async () => {
  await waitForHealthy(layout);
  const pooled = await Promise.all(
    Array.from({ length: 4 }, () => cluster.startExtraApi({ COBRO_POOLED_DATABASE_URL: layout.pooledUrl, COBRO_DB_PREPARED_STATEMENTS: "false" })),
  );
  const ledger = newLedger();
  let stopLoad!: () => void;
  const load = runLoad(ledger, await newTenants(pooled), new Promise<void>((resolve) => (stopLoad = resolve)));
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  stopLoad();
  await load;
  // The servers' connections of the four processes' queries: PgBouncer's, at most its pool size.
  const backends = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database()`.execute(cluster.database.db);
  console.log(
    `pgbouncer: 4 API processes, ${ledger.successes.length} answered requests in 10 s; ${backends.rows[0]!.n} server connections to the database; answers: ${summary(ledger)}`,
  );
  expect(ledger.successes.filter((success) => success.what === "create").length).toBeGreaterThan(0);
  await checkLedger(ledger);
  await Promise.all(pooled.map((api) => cluster.kill(api.started)));
}, 300_000);
