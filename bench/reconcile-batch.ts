// What a reconciliation batch costs PostgreSQL by its size, in-process (no HTTP): `node bench/reconcile-batch.ts`.
// Seeds BENCH_RECONCILE_CHARGES CUIL-mode charges (default 6,000) of one merchant through the domain, then
// pays them with batches of each size in BENCH_RECONCILE_SIZES (default 1,4,16,64,256,500), each transfer
// paying one charge in full (the common case: a payment, its breakdown, its event and delivery job, the
// CVU given back), one batch at a time. Prints per transfer: wall time, PostgreSQL's planning and
// execution time (pg_stat_statements) and PostgreSQL's CPU (its processes' /proc times); and transfers/s.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { createCharge } from "../domain/charges/charges.ts";
import { validateCreateRequest } from "../domain/charges/charge-rules.ts";
import { reconcileBatch } from "../domain/reconciliation/reconcile-batch.ts";
import type { IncomingTransfer } from "../domain/reconciliation/transfer-rules.ts";
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { createBenchIntegration } from "./fixtures/bench-integration.ts";
import { cuilChargeBody } from "./load/charge-bodies.ts";
import { postgresCpuSeconds } from "./fixtures/bench-processes.ts";
import { statementFigures } from "./fixtures/statement-counts.ts";

const sizes = (process.env.BENCH_RECONCILE_SIZES ?? "1,4,16,64,256,500").split(",").map(Number);
const chargeCount = Number(process.env.BENCH_RECONCILE_CHARGES ?? 6_000);
const verbose = process.env.BENCH_VERBOSE === "1";

await withBenchDatabase(async (database) => {
  const db = database.db;
  const bench = await createBenchIntegration(db, 0);
  const merchantAccountId = bench.merchants[0]!.id;
  const now = new Date();
  const context = {
    integrationClientId: bench.integrationClientId,
    merchantAccountId,
    now,
    serviceEnv: "sandbox" as const,
    globalMessageCap: 1_000_000,
    destinationPolicy: { allowLoopback: true },
  };
  const payable: Array<{ cvu: string; cuil: string; cents: number }> = [];
  const seeding = performance.now();
  for (let i = 0; i < chargeCount; i++) {
    const body = JSON.parse(cuilChargeBody());
    const created = await createCharge(db, context, validateCreateRequest(body, now));
    payable.push({ cvu: created.cvu!, cuil: body.customer.taxDocument, cents: created.charge.amount_cents! });
  }
  console.log(`${chargeCount} charges seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  await sql`vacuum analyze`.execute(db);

  let next = 0;
  const batchOf = (size: number): IncomingTransfer[] => {
    const taken = payable.slice(next, next + size);
    next += size;
    return taken.map((charge) => ({
      transactionId: `rb_${randomUUID()}`,
      amountCents: charge.cents,
      receivingCvu: charge.cvu,
      senderCuil: charge.cuil,
      operatedAt: now,
      source: "bank-feed",
    }));
  };
  console.log("batch size | transfers/s | per transfer: wall, PostgreSQL plan + exec (plan), PostgreSQL CPU | statements per batch");
  for (const size of sizes) {
    // Warm the connection's prepared statements, then measure about 1,000 transfers (at least 8 batches).
    await reconcileBatch(db, batchOf(size), { receivedAt: new Date(), livemode: false });
    const batches = Math.max(8, Math.floor(1_000 / size));
    if (next + batches * size > payable.length) {
      console.log(`${String(size).padStart(10)} | not enough charges left (BENCH_RECONCILE_CHARGES)`);
      continue;
    }
    const statementsBefore = await database.statements.snapshot();
    const cpuBefore = postgresCpuSeconds();
    const started = performance.now();
    for (let b = 0; b < batches; b++) {
      const answers = await reconcileBatch(db, batchOf(size), { receivedAt: new Date(), livemode: false });
      const failed = answers.find((answer) => answer.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
    }
    const wallMs = performance.now() - started;
    const cpuMs = (postgresCpuSeconds() - cpuBefore) * 1000;
    const transfers = batches * size;
    const figures = statementFigures(statementsBefore, await database.statements.snapshot(), transfers, 40);
    const exec = figures.top.reduce((sum, s) => sum + s.execMsPerRequest, 0);
    const plan = figures.top.reduce((sum, s) => sum + s.planMsPerRequest, 0);
    console.log(
      `${String(size).padStart(10)} | ${String(Math.round(transfers / (wallMs / 1000))).padStart(11)} | ${(wallMs / transfers).toFixed(3)} ms, ${exec.toFixed(3)} ms (${plan.toFixed(3)}), ${(cpuMs / transfers).toFixed(3)} ms | ${(figures.perRequest * size).toFixed(1)}`,
    );
    if (verbose)
      for (const s of figures.top.slice(0, 6))
        console.log(
          `      ${(s.perRequest * size).toFixed(2)} a batch, ${(s.execMsPerRequest * size).toFixed(2)} ms a batch (plan ${(s.planMsPerRequest * size).toFixed(2)})  ${s.query.replace(/\s+/g, " ").slice(0, 120)}`,
        );
  }
});
