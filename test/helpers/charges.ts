// Valid POST /payment-request bodies for tests over real HTTP. The default due date is 18 days after the
// Argentina day of the file's test service clock (2026-12-10 for the files whose clock stands at 2026-11-22),
// so that a body stays valid whatever the real date; a test states what it cares about as overrides, which
// replace whole fields.
import { addDays, argentinaDate } from "../../domain/argentina-time.ts";
import type { Clock } from "../../domain/clock.ts";
import { uniqueRef } from "./unique-ref.ts";
import { latestServiceClock, type TestService } from "./service.ts";

/** Later fields replace earlier ones, as a spread does. */
type Overridden<Base, Overrides> = Omit<Base, keyof Overrides> & Overrides;

const draftDefaults = () => ({
  referenceId: uniqueRef("REF"),
  description: "Cuota",
  dueDates: [dueDateIn(latestServiceClock(), 18)],
  customer: { name: "Juan Pérez" },
});
type DraftDefaults = ReturnType<typeof draftDefaults>;

/** A draft (no amount): "Cuota" due 18 days after the service clock's day from Juan Pérez, with a fresh referenceId. */
export function draftChargeBody<Overrides extends object = Record<never, never>>(overrides: Overrides = {} as Overrides): Overridden<DraftDefaults, Overrides> {
  return { ...draftDefaults(), ...overrides } as never;
}

/** A priced charge in CVU mode without notifications: the draft with an amount of $1000. */
export function chargeBody<Overrides extends object = Record<never, never>>(
  overrides: Overrides = {} as Overrides,
): Overridden<DraftDefaults & { amount: number; sendWhatsappNotification: boolean; sendEmailNotification: boolean }, Overrides> {
  return { ...draftDefaults(), amount: 1000, sendWhatsappNotification: false, sendEmailNotification: false, ...overrides } as never;
}

/** A due date `days` after the Argentina day the clock shows (`YYYY-MM-DD`), for services whose clock starts at real now. */
export function dueDateIn(clock: Clock, days: number): string {
  return addDays(argentinaDate(clock.now()), days);
}

/** The token of a charge's payer page (`/p/{token}`): the service sends it only inside payers' messages. */
export async function payerPageToken(t: TestService, paymentRequestId: string): Promise<string> {
  const row = await t.database.db.selectFrom("charges").select("payer_page_token").where("id", "=", paymentRequestId).executeTakeFirstOrThrow();
  return row.payer_page_token;
}
