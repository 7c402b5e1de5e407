// How fast the worker sends payer notifications to a chat provider on loopback: BENCH_NOTIFICATIONS due
// messages (default 5,000, all chat), queued by one sweep with no pacing, then sent by a worker of
// BENCH_CONCURRENCY jobs at once (default: 4, the service's, then 16 and 32) through the real send task
// (claim, render, the Cloud API request, record) to a stand-in that answers a message id at once. Prints
// messages per second for each concurrency. `node bench/notification-send.ts` (embedded PostgreSQL in a
// temp folder, or DATABASE_URL).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { systemClock } from "../domain/clock.ts";
import { simulatedSender } from "../domain/outbound/simulated-sender.ts";
import { WhatsappSender } from "../domain/outbound/whatsapp-sender.ts";
import { queueDueNotifications } from "../domain/notifications/due-sweep.ts";
import { OutboundHttpClient } from "../domain/outbound/http-client.ts";
import { startWorker } from "../jobs/queue.ts";
import { createTaskList } from "../jobs/tasks.ts";
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { seedDueMessages } from "./fixtures/due-messages.ts";
import { createMetrics } from "../runtime/metrics.ts";

const messages = Number(process.env.BENCH_NOTIFICATIONS ?? 5_000);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "4,16,32").split(",").map(Number);

// The chat provider's stand-in: every request answered at once with a message id, as the Cloud API does.
let received = 0;
const provider = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    received++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ messaging_product: "whatsapp", contacts: [], messages: [{ id: `wamid.bench${received}` }] }));
  });
});
await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
const apiUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v21.0`;

console.log(`${messages} chat messages a run, provider on loopback`);
for (const concurrency of concurrencies) {
  const whatsapp = new WhatsappSender({ apiUrl, phoneNumberId: "100200300", token: "bench-token", templatePrefix: "cobro_" });
  const webhookHttp = new OutboundHttpClient({ allowLoopback: false });
  await withBenchDatabase(async (database) => {
    const db = database.db;
    await seedDueMessages(db, messages, ["whatsapp"]);
    const queued = await queueDueNotifications(db, { now: new Date(), sendsPerSecond: { email: 1e6, whatsapp: 1e6 } });

    const started = process.hrtime.bigint();
    const worker = await startWorker({
      connectionString: database.connectionString,
      concurrency,
      pollInterval: 200,
      taskList: createTaskList({
        metrics: createMetrics("worker"),
        db,
        clock: systemClock,
        serviceEnv: "production",
        draftLifetimeHours: 6,
        webhookHttp,
        notificationSendsPerSecond: { email: 1e6, whatsapp: 1e6 },
        notificationSenders: { email: simulatedSender, whatsapp },
        integrationPublicUrl: "https://api.cobro.example",
      }),
    });
    let sent = 0;
    while (sent < queued) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      sent = (await sql<{ n: number }>`select count(*)::int as n from notifications where status = 'sent'`.execute(db)).rows[0]!.n;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    await worker.stop();
    console.log(`  concurrency ${String(concurrency).padStart(2)}: ${sent} sent in ${seconds.toFixed(2)} s = ${Math.round(sent / seconds)} messages/s`);
  }).finally(() => Promise.all([whatsapp.close(), webhookHttp.close()]));
}
provider.close();
