// Whether a simulated transfer's CVU belongs (now or before) to a charge of the caller's integration, with
// the integration's subscription (for the answer about the webhook). Transfers arrive together at load, as
// their batches answer together: the questions asked in one turn of the event loop are answered by one
// statement over arrays, as their transfers are reconciled by one batch.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { inGenericPlanTransaction } from "../../db/transactions.ts";

interface Question {
  cvu: string;
  integrationClientId: string;
  answer: (enabledEvents: string[] | undefined) => void;
  fail: (error: unknown) => void;
}

export class SimulatedCvus {
  readonly #db: Kysely<Database>;
  #asked: Question[] = [];

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The integration's enabled events when `cvu` held one of its charges; undefined when it never did. */
  enabledEventsIfOwned(cvu: string, integrationClientId: string): Promise<string[] | undefined> {
    return new Promise((answer, fail) => {
      // The first question of a turn schedules the statement for the end of the turn (no wait of its own).
      if (this.#asked.length === 0) setImmediate(() => void this.#answerAsked());
      this.#asked.push({ cvu, integrationClientId, answer, fail });
    });
  }

  async #answerAsked(): Promise<void> {
    const asked = this.#asked;
    this.#asked = [];
    try {
      // One generic plan for every number of questions: left to choose, PostgreSQL kept planning it again
      // for each (0.5 ms a statement, four times its run) in most runs of the bench, depending on the sizes
      // its first runs happened to have.
      const { rows } = await inGenericPlanTransaction(this.#db, (trx) =>
        sql<{ position: string; enabled_events: string[] }>`
        select q.position, owner.enabled_events
          from unnest(${asked.map((q) => q.cvu)}::text[], ${asked.map((q) => q.integrationClientId)}::uuid[]) with ordinality as q(cvu, integration_client_id, position)
          cross join lateral (
            select i.enabled_events
              from charges c join cvu_accounts a on a.id = c.cvu_account_id join integration_clients i on i.id = c.integration_client_id
             where a.cvu = q.cvu and c.integration_client_id = q.integration_client_id
             limit 1
          ) owner`.execute(trx),
      );
      const owned = new Map(rows.map((row) => [Number(row.position), row.enabled_events]));
      for (const [index, question] of asked.entries()) question.answer(owned.get(index + 1));
    } catch (error) {
      for (const question of asked) question.fail(error);
    }
  }
}
