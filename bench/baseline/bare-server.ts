// The bare baseline: the same kind of work as Cobro's create and read of a charge with nothing but
// express 5 and a pg Pool of Cobro's size (10): POST /charges inserts one row into its own table and
// answers it, GET /charges/:referenceId selects one row by key, GET /healthz answers at once. No
// contract validation, authentication, CVU pool or events: the floor Cobro is compared with.
// `DATABASE_URL=… PORT=0 node bench/baseline/bare-server.ts` prints `listening on <port>`.
import express from "express";
import type { AddressInfo } from "node:net";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: "-c TimeZone=UTC" });
await pool.query(`
  create table if not exists bare_charges (
    id uuid primary key default gen_random_uuid(),
    reference_id text not null unique,
    amount_cents bigint not null,
    description text not null,
    due_dates date[] not null,
    customer jsonb not null,
    state text not null default 'pending',
    created_at timestamptz not null default now()
  )`);

const app = express();
app.use(express.json());

app.get("/healthz", (_req, res) => {
  res.json({ status: "ok" });
});

app.post("/charges", async (req, res) => {
  const body = req.body as { referenceId: string; amount: number; description: string; dueDates: string[]; customer: object };
  const { rows } = await pool.query(
    `insert into bare_charges (reference_id, amount_cents, description, due_dates, customer) values ($1, $2, $3, $4, $5) returning *`,
    [body.referenceId, Math.round(body.amount * 100), body.description, body.dueDates, JSON.stringify(body.customer)],
  );
  res.status(201).json(view(rows[0]));
});

app.get("/charges/:referenceId", async (req, res) => {
  const { rows } = await pool.query(`select * from bare_charges where reference_id = $1`, [req.params.referenceId]);
  if (rows.length === 0) res.status(404).json({ error: "NotFound" });
  else res.json(view(rows[0]));
});

/** About the size of Cobro's charge body. */
function view(row: Record<string, any>) {
  return {
    type: "standard",
    paymentRequestId: row.id,
    referenceId: row.reference_id,
    amount: Number(row.amount_cents) / 100,
    description: row.description,
    dueDates: row.due_dates,
    customer: row.customer,
    sendWhatsappNotification: false,
    sendEmailNotification: false,
    conciliationType: "cuil",
    state: row.state,
    calculatedAmounts: [{ dueDate: row.due_dates[0], amount: Number(row.amount_cents) / 100, isOriginalAmount: true }],
    CVU: "0000253200000000123459",
    bankAccountInfo: { accountHolderName: "Bench S.A.", accountHolderTaxId: "30712345671", bankName: "Banco Cobro S.A." },
    createdAt: row.created_at,
  };
}

const server = app.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening on ${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
