// The Sandbox's tools: test tokens of the Sandbox merchant (shown once), a simulated bank transfer, and
// the integration's own Sandbox clock.
import { useState } from "preact/hooks";
import type { IntegrationPaymentRequestDetail, SimulatePaymentResult, TestTokens } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { unplacedFieldErrors } from "../api-error.ts";
import { Field, SelectField } from "../components/field.tsx";
import { ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { SecretOnce } from "../components/secret-once.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatClockOffset, formatDate, formatDateTime, formatMoney } from "../format.ts";
import { decimalText, parsePesos, parseWholeNumber } from "../input-parsing.ts";
import { Link } from "../router.ts";
import { UNMATCHED_REASON_LABELS } from "../status-labels.ts";

export function SandboxTools() {
  // A test charge just created fills the simulation's CVU and amount, the next step a person takes.
  const [charge, setCharge] = useState<IntegrationPaymentRequestDetail | undefined>(undefined);
  return (
    <>
      <h1>Herramientas del Sandbox</h1>
      <TestTokensSection />
      <TestChargeSection onCreated={setCharge} />
      <SimulatePaymentSection key={charge?.paymentRequestId ?? "none"} cvu={charge?.cvu} amount={charge?.amount} />
      <SandboxClockSection />
    </>
  );
}

const TEST_CHARGE_FIELDS = ["amount", "description", "dueDate", "customerName", "customerEmail"] as const;
type TestChargeField = (typeof TEST_CHARGE_FIELDS)[number];

function TestChargeSection({ onCreated }: { onCreated: (charge: IntegrationPaymentRequestDetail) => void }) {
  const [values, setValues] = useState<Record<TestChargeField, string>>({ amount: "", description: "", dueDate: "", customerName: "", customerEmail: "" });
  const [amountProblem, setAmountProblem] = useState<string | undefined>(undefined);
  const [created, setCreated] = useState<IntegrationPaymentRequestDetail | undefined>(undefined);
  const create = useAction((amount: number) =>
    adminApi.sandbox.createTestCharge({
      testChargeCreate: {
        amount,
        ...(values.description.trim() ? { description: values.description.trim() } : {}),
        ...(values.dueDate ? { dueDate: values.dueDate } : {}),
        ...(values.customerName.trim() ? { customerName: values.customerName.trim() } : {}),
        ...(values.customerEmail.trim() ? { customerEmail: values.customerEmail.trim() } : {}),
      },
    }),
  );
  const set = (field: TestChargeField) => (value: string) => setValues({ ...values, [field]: value });
  const errorOf = (field: TestChargeField) => (field === "amount" && amountProblem) || create.error?.fieldErrors[field];
  return (
    <section class="panel" aria-labelledby="test-charge-title">
      <h2 id="test-charge-title">Crear un cobro de prueba</h2>
      <p>Un cobro para el comercio de prueba, sin escribir código. Después podés simular su pago acá abajo.</p>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          const amount = parsePesos(values.amount);
          setAmountProblem(amount === undefined ? "Ingresá un importe en pesos, por ejemplo 1500,50." : undefined);
          setCreated(undefined);
          if (amount === undefined) return;
          const charge = await create.run(amount);
          if (charge) {
            setCreated(charge);
            onCreated(charge);
          }
        }}
      >
        <ErrorAlert error={create.error} extra={create.error ? unplacedFieldErrors(create.error, TEST_CHARGE_FIELDS) : []} />
        <Field
          label="Importe del cobro"
          name="amount"
          inputMode="decimal"
          autocomplete="off"
          required
          hint="En pesos, por ejemplo 1500,50."
          value={values.amount}
          onValue={set("amount")}
          error={errorOf("amount")}
        />
        <Field
          label="Descripción"
          name="description"
          autocomplete="off"
          hint="Opcional: «Cobro de prueba» si la dejás vacía."
          value={values.description}
          onValue={set("description")}
          error={errorOf("description")}
        />
        <Field
          label="Vencimiento"
          type="date"
          name="dueDate"
          hint="Opcional: en 10 días si lo dejás vacío."
          value={values.dueDate}
          onValue={set("dueDate")}
          error={errorOf("dueDate")}
        />
        <Field
          label="Nombre del pagador de prueba"
          name="customerName"
          autocomplete="off"
          hint="Opcional: «Pagador de prueba» si lo dejás vacío."
          value={values.customerName}
          onValue={set("customerName")}
          error={errorOf("customerName")}
        />
        <Field
          label="Email del pagador de prueba"
          type="email"
          name="customerEmail"
          autocomplete="off"
          hint="Opcional: le llegan los avisos del cobro (simulados si no hay proveedor de correo)."
          value={values.customerEmail}
          onValue={set("customerEmail")}
          error={errorOf("customerEmail")}
        />
        <button type="submit" disabled={create.busy}>
          Crear el cobro de prueba
        </button>
      </form>
      {created && (
        <Notice>
          <p>
            Cobro {created.integrationReferenceId} por {formatMoney(created.amount ?? 0)} creado. CVU para transferir:{" "}
            <span class="mono" data-testid="test-charge-cvu">
              {created.cvu}
            </span>
            .
          </p>
          <p>
            <Link href={`/charges/${encodeURIComponent(created.paymentRequestId)}`}>Ver el cobro</Link>
          </p>
        </Notice>
      )}
    </section>
  );
}

function TestTokensSection() {
  const [tokens, setTokens] = useState<TestTokens | undefined>(undefined);
  const create = useAction(() => adminApi.sandbox.createTestTokens());
  return (
    <section class="panel" aria-labelledby="test-tokens-title">
      <h2 id="test-tokens-title">Tokens de prueba</h2>
      <p>Tokens del comercio de prueba para llamar a la API de Integración desde tu código.</p>
      <ErrorAlert error={create.error} />
      {tokens ? (
        <SecretOnce
          title="Tokens de prueba"
          secrets={[
            { label: "idToken", value: tokens.idToken },
            { label: "refreshToken", value: tokens.refreshToken },
          ]}
          onDone={() => setTokens(undefined)}
        />
      ) : (
        <button type="button" disabled={create.busy} onClick={async () => setTokens(await create.run())}>
          Crear tokens de prueba
        </button>
      )}
    </section>
  );
}

const SIMULATE_FIELDS = ["cvu", "amount", "externalAccountCvu", "externalAccountCuil", "externalAccountName"] as const;
type SimulateField = (typeof SIMULATE_FIELDS)[number];

/** `cvu` and `amount`: a test charge's, to start from (the admin may change them). */
function SimulatePaymentSection({ cvu, amount: chargeAmount }: { cvu?: string; amount?: number }) {
  const [values, setValues] = useState<Record<SimulateField, string>>({
    cvu: cvu ?? "",
    amount: chargeAmount === undefined ? "" : decimalText(chargeAmount),
    externalAccountCvu: "",
    externalAccountCuil: "",
    externalAccountName: "",
  });
  const [amountProblem, setAmountProblem] = useState<string | undefined>(undefined);
  const [result, setResult] = useState<SimulatePaymentResult | undefined>(undefined);
  const simulate = useAction((amount: number) =>
    adminApi.sandbox.simulatePayment({
      simulatePaymentRequest: {
        cvu: values.cvu.trim(),
        amount,
        externalAccountCvu: values.externalAccountCvu.trim(),
        externalAccountCuil: values.externalAccountCuil.trim(),
        externalAccountName: values.externalAccountName.trim(),
      },
    }),
  );
  const set = (field: SimulateField) => (value: string) => setValues({ ...values, [field]: value });
  const errorOf = (field: SimulateField) => (field === "amount" && amountProblem) || simulate.error?.fieldErrors[field];
  return (
    <section class="panel" aria-labelledby="simulate-title">
      <h2 id="simulate-title">Simular un pago</h2>
      <p>Una transferencia al CVU de un cobro, como si llegara del banco.</p>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          const amount = parsePesos(values.amount);
          setAmountProblem(amount === undefined ? "Ingresá un importe en pesos, por ejemplo 1500,50." : undefined);
          setResult(undefined);
          if (amount !== undefined) setResult(await simulate.run(amount));
        }}
      >
        <ErrorAlert error={simulate.error} extra={simulate.error ? unplacedFieldErrors(simulate.error, SIMULATE_FIELDS) : []} />
        <Field
          label="CVU del cobro"
          required
          name="cvu"
          inputMode="numeric"
          autocomplete="off"
          hint="22 dígitos."
          value={values.cvu}
          onValue={set("cvu")}
          error={errorOf("cvu")}
        />
        <Field
          label="Importe"
          required
          name="amount"
          inputMode="decimal"
          autocomplete="off"
          hint="En pesos, por ejemplo 1500,50."
          value={values.amount}
          onValue={set("amount")}
          error={errorOf("amount")}
        />
        <Field
          label="CBU o CVU del pagador"
          required
          name="externalAccountCvu"
          inputMode="numeric"
          autocomplete="off"
          value={values.externalAccountCvu}
          onValue={set("externalAccountCvu")}
          error={errorOf("externalAccountCvu")}
        />
        <Field
          label="CUIL o CUIT del pagador"
          required
          name="externalAccountCuil"
          inputMode="numeric"
          autocomplete="off"
          hint="11 dígitos, sin guiones."
          value={values.externalAccountCuil}
          onValue={set("externalAccountCuil")}
          error={errorOf("externalAccountCuil")}
        />
        <Field
          label="Nombre del pagador"
          required
          name="externalAccountName"
          autocomplete="off"
          value={values.externalAccountName}
          onValue={set("externalAccountName")}
          error={errorOf("externalAccountName")}
        />
        <button type="submit" disabled={simulate.busy}>
          Simular el pago
        </button>
      </form>
      {result && <SimulationOutcome result={result} />}
    </section>
  );
}

function SimulationOutcome({ result }: { result: SimulatePaymentResult }) {
  return (
    <Notice>
      <p>
        Transferencia {result.idTransaccion} por {formatMoney(result.amount)} registrada.{" "}
        {result.conciliated
          ? "Se imputó al cobro."
          : `No se imputó a ningún cobro${result.unmatchedReason ? `: ${UNMATCHED_REASON_LABELS[result.unmatchedReason] ?? result.unmatchedReason}` : ""}.`}
      </p>
      {result.paymentRequestId && (
        <p>
          <Link href={`/charges/${encodeURIComponent(result.paymentRequestId)}`}>Ver el cobro</Link>
        </p>
      )}
      {result.webhookWillFire && result.webhookEvent && <p>Se enviará el evento {result.webhookEvent} a tu webhook.</p>}
    </Notice>
  );
}

/** The units the clock form moves by, and their letters in an ISO 8601 duration. */
const CLOCK_UNITS = [
  { value: "minutes", label: "minutos", duration: (n: number) => `PT${n}M` },
  { value: "hours", label: "horas", duration: (n: number) => `PT${n}H` },
  { value: "days", label: "días", duration: (n: number) => `P${n}D` },
  { value: "weeks", label: "semanas", duration: (n: number) => `P${n}W` },
] as const;

/**
 * The clock moves by a time (`advanceBy`) or to a moment (`advanceTo`): exactly one of the two, so the
 * form asks which first and sends only that one. A moment is typed in Argentina's time (UTC-3, no DST).
 */
function SandboxClockSection() {
  const clock = useResource(() => adminApi.sandbox.getSandboxClock(), []);
  const [mode, setMode] = useState<"by" | "to">("by");
  const [amount, setAmount] = useState("1");
  const [unit, setUnit] = useState<(typeof CLOCK_UNITS)[number]["value"]>("days");
  const [day, setDay] = useState("");
  const [time, setTime] = useState("10:00");
  const [problem, setProblem] = useState<{ field: "amount" | "day"; message: string } | undefined>(undefined);
  const advance = useAction((sandboxClockAdvance: { advanceBy: string } | { advanceTo: string }) =>
    adminApi.sandbox.advanceSandboxClock({ sandboxClockAdvance }),
  );
  const reset = useAction(() => adminApi.sandbox.resetSandboxClock());
  const byError = (problem?.field === "amount" && problem.message) || advance.error?.fieldErrors.advanceBy;
  const toError = (problem?.field === "day" && problem.message) || advance.error?.fieldErrors.advanceTo;
  return (
    <section class="panel" aria-labelledby="clock-title">
      <h2 id="clock-title">Reloj del Sandbox</h2>
      <Loaded resource={clock}>
        {(now) => (
          <dl class="facts">
            <dt>Ahora</dt>
            <dd data-testid="sandbox-now">{formatDateTime(now.now)}</dd>
            <dt>Hoy</dt>
            <dd>{formatDate(now.today)}</dd>
            <dt>Respecto de la hora real</dt>
            <dd data-testid="sandbox-offset">{formatClockOffset(now.offsetSeconds)}</dd>
          </dl>
        )}
      </Loaded>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setProblem(undefined);
          let body: { advanceBy: string } | { advanceTo: string };
          if (mode === "by") {
            const count = parseWholeNumber(amount);
            if (count === undefined || count < 1) return setProblem({ field: "amount", message: "Ingresá un número entero mayor que 0." });
            body = { advanceBy: CLOCK_UNITS.find((option) => option.value === unit)!.duration(count) };
          } else {
            if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || !/^\d{2}:\d{2}$/.test(time)) return setProblem({ field: "day", message: "Elegí el día y la hora." });
            body = { advanceTo: `${day}T${time}:00-03:00` };
          }
          if (await advance.run(body)) clock.reload();
        }}
      >
        <ErrorAlert error={advance.error} extra={advance.error ? unplacedFieldErrors(advance.error, ["advanceBy", "advanceTo"]) : []} />
        <fieldset class="choice">
          <legend>¿Cómo lo movés?</legend>
          <label>
            <input type="radio" name="clock-mode" checked={mode === "by"} onChange={() => setMode("by")} /> Adelantar un tiempo
          </label>
          <label>
            <input type="radio" name="clock-mode" checked={mode === "to"} onChange={() => setMode("to")} /> Ir a un día y hora
          </label>
        </fieldset>
        {mode === "by" ? (
          <div class="field-row">
            <Field label="Cantidad" name="amount" inputMode="numeric" autocomplete="off" required value={amount} onValue={setAmount} error={byError} />
            <SelectField
              label="Unidad"
              name="unit"
              value={unit}
              options={CLOCK_UNITS.map(({ value, label }) => ({ value, label }))}
              onValue={(value) => setUnit(value as typeof unit)}
            />
          </div>
        ) : (
          <div class="field-row">
            <Field label="Día" type="date" name="day" required value={day} onValue={setDay} error={toError} />
            <Field label="Hora (Argentina)" type="time" name="time" required value={time} onValue={setTime} />
          </div>
        )}
        <p class="field-hint">El reloj avanza (y puede volver a la hora real): cobros, vencimientos y avisos se mueven con él.</p>
        <button type="submit" disabled={advance.busy}>
          Mover el reloj
        </button>
      </form>
      {clock.status === "ready" && clock.data.offsetSeconds > 0 && (
        <div>
          <ErrorAlert error={reset.error} />
          <p class="field-hint">
            Para empezar de nuevo desde hoy, el reloj vuelve a la hora real. Lo que ya pasó queda como está: un cobro vencido sigue vencido, y uno abierto vence
            en la hora real.
          </p>
          <button type="button" class="button-secondary" disabled={reset.busy} onClick={async () => (await reset.run()) && clock.reload()}>
            Volver a la hora real
          </button>
        </div>
      )}
    </section>
  );
}
