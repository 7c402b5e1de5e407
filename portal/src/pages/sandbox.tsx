// The Sandbox's tools: test tokens of the Sandbox merchant (shown once), a simulated bank transfer, and
// the integration's own Sandbox clock.
import { useState } from "preact/hooks";
import type { SimulatePaymentResult, TestTokens } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { unplacedFieldErrors } from "../api-error.ts";
import { Field } from "../components/field.tsx";
import { ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { SecretOnce } from "../components/secret-once.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatDate, formatDateTime, formatMoney } from "../format.ts";
import { parsePesos } from "../input-parsing.ts";
import { Link } from "../router.ts";
import { UNMATCHED_REASON_LABELS } from "../status-labels.ts";

export function SandboxTools() {
  return (
    <>
      <h1>Herramientas del Sandbox</h1>
      <TestTokensSection />
      <SimulatePaymentSection />
      <SandboxClockSection />
    </>
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

function SimulatePaymentSection() {
  const [values, setValues] = useState<Record<SimulateField, string>>({
    cvu: "",
    amount: "",
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
          name="externalAccountCvu"
          inputMode="numeric"
          autocomplete="off"
          value={values.externalAccountCvu}
          onValue={set("externalAccountCvu")}
          error={errorOf("externalAccountCvu")}
        />
        <Field
          label="CUIL o CUIT del pagador"
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

function SandboxClockSection() {
  const clock = useResource(() => adminApi.sandbox.getSandboxClock(), []);
  const [advanceBy, setAdvanceBy] = useState("P1D");
  const advance = useAction(() => adminApi.sandbox.advanceSandboxClock({ sandboxClockAdvance: { advanceBy: advanceBy.trim() } }));
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
            <dt>Adelantado</dt>
            <dd>{now.offsetSeconds === 0 ? "No" : `${Math.round(now.offsetSeconds / 3600)} h`}</dd>
          </dl>
        )}
      </Loaded>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          if (await advance.run()) clock.reload();
        }}
      >
        <ErrorAlert error={advance.error} extra={advance.error ? unplacedFieldErrors(advance.error, ["advanceBy"]) : []} />
        <Field
          label="Adelantar"
          name="advanceBy"
          autocomplete="off"
          hint="Una duración ISO 8601: P1D es un día, PT2H son dos horas."
          value={advanceBy}
          onValue={setAdvanceBy}
          error={advance.error?.fieldErrors.advanceBy}
        />
        <button type="submit" disabled={advance.busy}>
          Adelantar el reloj
        </button>
      </form>
    </section>
  );
}
