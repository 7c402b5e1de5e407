// The integration's offer: the commission it proposes to merchants when they link (a percentage of each
// payment, a fixed amount per payment, or both). An empty field leaves that part out of the offer.
import { useState } from "preact/hooks";
import type { OfferView } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { unplacedFieldErrors } from "../api-error.ts";
import { Field } from "../components/field.tsx";
import { ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatMoney } from "../format.ts";
import { decimalText, parsePercentage, parsePesos } from "../input-parsing.ts";

export function Offer() {
  const offer = useResource(() => adminApi.offer.getOffer(), []);
  return (
    <>
      <h1>Oferta</h1>
      <p>La comisión que tu integración propone a cada comercio cuando se vincula.</p>
      <Loaded resource={offer}>{(current) => <OfferForm offer={current} />}</Loaded>
    </>
  );
}

const OFFER_FIELDS = ["percentage", "fixedAmount"] as const;

function OfferForm({ offer }: { offer: OfferView }) {
  const [percentage, setPercentage] = useState(decimalText(offer.percentage));
  const [fixedAmount, setFixedAmount] = useState(decimalText(offer.fixedAmount));
  const [problems, setProblems] = useState<{ percentage?: string; fixedAmount?: string }>({});
  const [saved, setSaved] = useState<OfferView | undefined>(undefined);
  const save = useAction((offerUpdate: { percentage?: number; fixedAmount?: number }) => adminApi.offer.replaceOffer({ offerUpdate }));
  return (
    <form
      noValidate
      class="panel"
      onSubmit={async (event) => {
        event.preventDefault();
        setSaved(undefined);
        const percent = parsePercentage(percentage);
        const fixed = fixedAmount.trim() === "" ? null : parsePesos(fixedAmount);
        setProblems({
          percentage: percent === undefined ? "Ingresá un porcentaje entre 0 y 100, por ejemplo 2,5, o dejalo vacío." : undefined,
          fixedAmount: fixed === undefined ? "Ingresá un importe en pesos, por ejemplo 150,00, o dejalo vacío." : undefined,
        });
        if (percent === undefined || fixed === undefined) return;
        // A part left empty is left out of the body: the offer then has none.
        const result = await save.run({ ...(percent === null ? {} : { percentage: percent }), ...(fixed === null ? {} : { fixedAmount: fixed }) });
        if (result) setSaved(result);
      }}
    >
      <ErrorAlert error={save.error} extra={save.error ? unplacedFieldErrors(save.error, OFFER_FIELDS) : []} />
      <Field
        label="Porcentaje de cada pago (%)"
        name="percentage"
        inputMode="decimal"
        autocomplete="off"
        hint="Vacío: sin porcentaje."
        value={percentage}
        onValue={setPercentage}
        error={problems.percentage ?? save.error?.fieldErrors.percentage}
      />
      <Field
        label="Monto fijo por pago"
        name="fixedAmount"
        inputMode="decimal"
        autocomplete="off"
        hint="En pesos, por ejemplo 150,00. Vacío: sin monto fijo."
        value={fixedAmount}
        onValue={setFixedAmount}
        error={problems.fixedAmount ?? save.error?.fieldErrors.fixedAmount}
      />
      <button type="submit" disabled={save.busy}>
        Guardar la oferta
      </button>
      {saved && (
        <Notice>
          <p data-testid="offer-saved">
            Oferta guardada: {saved.percentage === null ? "sin porcentaje" : `${decimalText(saved.percentage)} %`} y{" "}
            {saved.fixedAmount === null ? "sin monto fijo" : `${formatMoney(saved.fixedAmount)} por pago`}.
          </p>
        </Notice>
      )}
    </form>
  );
}
