// The bank feed's pages under load (POST /internal/bank-feed/transfers/batch): each request a page of
// transfers of 1 peso from a CUIL-mode charge's payer to its CVU, signed with the bench's bank feed secret
// as the bank integration signs, the pages walking through the charges in turn (each charge gets a partial
// payment per round). Figures are per transfer: pages a second × the page's size, and the CPU per page
// divided by its transfers.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { bankFeedSignature } from "../../domain/reconciliation/bank-feed.ts";
import { postJson } from "../fixtures/bench-integration.ts";
import type { PayableCharge } from "../fixtures/seeded-charges.ts";
import type { StatementCounter } from "../fixtures/statement-counts.ts";
import { bulkBody } from "./charge-bodies.ts";
import { measureLoad, type LoadFigures, type LoadSettings } from "./load-run.ts";

/** The bank feed secret the bench's Cobro processes are started with (COBRO_BANK_FEED_SECRET). */
export const BENCH_BANK_FEED_SECRET = "bench-bank-feed-secret-000000000000";

let nextTransaction = 0;
const runTag = Date.now().toString(36).toUpperCase();

/** One page body of `size` transfers, to the charges from `start` on (in turn). */
export function bankFeedPageBody(targets: PayableCharge[], start: number, size: number): string {
  const operatedAt = new Date().toISOString();
  const transfers = Array.from({ length: size }, (_, k) => {
    const target = targets[(start + k) % targets.length]!;
    return { transactionId: `BENCH-${runTag}-${++nextTransaction}`, amount: 1, receivingCvu: target.cvu, senderCuil: target.cuil, operatedAt };
  });
  return JSON.stringify({ transfers });
}

/** Creates `batches` bulks of 100 CUIL-mode charges for the merchant whose token is given (fewer if its CVU pool runs out). */
export async function createPayableCharges(integrationUrl: string, merchantToken: string, batches: number): Promise<void> {
  for (let i = 0; i < batches; i++) {
    try {
      await postJson(`${integrationUrl}/payment-request/bulk`, JSON.parse(bulkBody(100)), { authorization: `Bearer ${merchantToken}` });
    } catch (error) {
      if (i === 0) throw error;
      return; // the merchant's CVU pool is used up: enough charges
    }
  }
}

export interface BankFeedFigures extends LoadFigures {
  /** Transfers a second (pages × page size). */
  transfersPerSecond: number;
  /**
   * Milliseconds of CPU per transfer, the API process's and PostgreSQL's, and each of `otherParts`' (the
   * worker delivering the transfers' events, the bench's own process).
   */
  cpuPerTransfer?: { serverMs: number; postgresMs: number; others?: Record<string, number> };
}

/** Pages of `pageSize` over `connections`, against the Admin API at `adminUrl`. */
export async function measureBankFeedPages(
  settings: LoadSettings,
  options: {
    adminUrl: string;
    targets: PayableCharge[];
    pageSize: number;
    connections: number;
    pid?: number;
    statements?: StatementCounter;
    otherParts?: () => Record<string, number>;
  },
): Promise<BankFeedFigures> {
  let next = 0;
  const figures = await measureLoad(
    settings,
    {
      url: `${options.adminUrl}/internal/bank-feed/transfers/batch`,
      connections: options.connections,
      timeout: 60,
      requests: [
        {
          method: "POST",
          setupRequest: (request) => {
            const body = bankFeedPageBody(options.targets, next, options.pageSize);
            next += options.pageSize;
            return {
              ...request,
              body,
              headers: { "content-type": "application/json", "x-bank-feed-signature": bankFeedSignature(BENCH_BANK_FEED_SECRET, body, new Date()) },
            };
          },
        },
      ],
    },
    options.pid,
    options.statements,
    options.otherParts,
  );
  const perTransfer = (perPage: number) => perPage / options.pageSize;
  const others = figures.cpuByPart && Object.fromEntries(Object.entries(figures.cpuByPart).map(([part, ms]) => [part, perTransfer(ms)]));
  return {
    ...figures,
    transfersPerSecond: figures.rps * options.pageSize,
    ...(figures.cpu
      ? { cpuPerTransfer: { serverMs: perTransfer(figures.cpu.serverMs), postgresMs: perTransfer(figures.cpu.postgresMs), ...(others ? { others } : {}) } }
      : {}),
  };
}

/** How many of the transfers the bench sent were matched and unmatched (a check that the load is the one meant). */
export async function benchTransferResults(db: Kysely<Database>): Promise<{ matched: number; unmatched: number }> {
  const rows = await db
    .selectFrom("transfers")
    .select((eb) => [eb.fn.countAll<string>().as("n"), eb.fn.count<string>("charge_id").as("matched")])
    .where("transaction_id", "like", `BENCH-${runTag}-%`)
    .executeTakeFirstOrThrow();
  return { matched: Number(rows.matched), unmatched: Number(rows.n) - Number(rows.matched) };
}
