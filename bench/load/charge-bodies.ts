// Bodies of the load: CUIL-mode charges, each for a payer never used before in the run (a CUIL-mode
// charge shares its CVU with others only when their payers differ), due in 30 days, without notifications.
import { addDays, argentinaDate } from "../../domain/argentina-time.ts";
import { cuilCheckDigit } from "../../domain/tax-id.ts";

let nextDni = 10_000_000;
let nextReference = 0;
const runTag = Date.now().toString(36).toUpperCase();

/** A valid CUIL of a person (prefix 20) for a DNI not used before in this run. */
export function freshPayerCuil(): string {
  for (;;) {
    const firstTen = `20${nextDni++}`;
    const digit = cuilCheckDigit(firstTen);
    if (digit !== undefined) return `${firstTen}${digit}`;
  }
}

export function freshReferenceId(): string {
  return `BENCH-${runTag}-${++nextReference}`;
}

const dueDate = () => addDays(argentinaDate(new Date()), 30);

/** One POST /payment-request body (also what the bare baseline stores). */
export function cuilChargeBody(): string {
  return JSON.stringify({
    referenceId: freshReferenceId(),
    description: "Cuota de diciembre",
    dueDates: [dueDate()],
    amount: 15000.5,
    customer: { name: "Juan Pérez", taxDocument: freshPayerCuil() },
    conciliationType: "cuil",
    sendWhatsappNotification: false,
    sendEmailNotification: false,
  });
}

/** One POST /payment-request/bulk body of `size` charges. */
export function bulkBody(size: number): string {
  const due = dueDate();
  const paymentRequests = Array.from({ length: size }, () => ({
    referenceId: freshReferenceId(),
    description: "Cuota de diciembre",
    dueDates: [due],
    amount: 15000.5,
    customer: { name: "Juan Pérez", taxDocument: freshPayerCuil() },
    sendWhatsappNotification: false,
    sendEmailNotification: false,
  }));
  return JSON.stringify({ paymentRequests });
}

/** One POST /my-integration/simulate-payment body: a transfer of 1 peso from the charge's payer to its CVU. */
export function simulatedTransferBody(target: { cvu: string; cuil: string }): string {
  return JSON.stringify({
    externalAccountCvu: "0000003100000000000017",
    externalAccountCuil: target.cuil,
    externalAccountName: "Juan Pérez",
    cvu: target.cvu,
    amount: 1,
  });
}
