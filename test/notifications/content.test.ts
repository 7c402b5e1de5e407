// What a payer notification says: amounts in the Argentine format, the due date that applies, the balance
// after payments, the email's two parts with every value escaped, and the chat template's parameters.
import { describe, expect, it } from "vitest";
import { argentinaDisplayDate } from "../../domain/argentina-time.ts";
import { formatPesos } from "../../domain/money.ts";
import { chatContent, chatParameters, emailContent, messageFacts, type FactsInput } from "../../domain/notifications/content.ts";
import { escapeHtml } from "../../domain/html.ts";

describe("formatPesos", () => {
  it.each([
    [0, "$ 0,00"],
    [5, "$ 0,05"],
    [100, "$ 1,00"],
    [123456, "$ 1.234,56"],
    [99999, "$ 999,99"],
    [100000, "$ 1.000,00"],
    [123456789, "$ 1.234.567,89"],
    [20_000_000_000, "$ 200.000.000,00"],
    [-150, "-$ 1,50"],
  ])("%i cents are %s", (cents, text) => {
    expect(formatPesos(cents)).toBe(text);
  });

  it("refuses what is not a whole number of cents", () => {
    expect(() => formatPesos(1.5)).toThrow(RangeError);
  });
});

describe("argentinaDisplayDate", () => {
  it("writes a calendar date day first", () => {
    expect(argentinaDisplayDate("2026-12-01")).toBe("01/12/2026");
    expect(() => argentinaDisplayDate("1/12/2026")).toThrow(RangeError);
  });
});

const base: FactsInput = {
  kind: "advance_reminder",
  at: new Date("2026-12-09T13:00:00Z"),
  charge: {
    amount_cents: 123456,
    surcharge_cents: 10000,
    paid_cents: 0,
    first_due_at: new Date("2026-12-11T03:00:00Z"), // the end of 2026-12-10 in Argentina
    due_dates: ["2026-12-10", "2026-12-20"],
    description: "Cuota de diciembre",
    customer_name: "Juan Pérez",
  },
  merchant: { fantasyName: "Gimnasio Sol", accountHolderName: "Sol Deportes SRL" },
  cvu: "0000003100000000000123",
  payerPageUrl: "https://api.cobro.test/p/abc123",
};

describe("messageFacts", () => {
  it("shows what is owed at the message's time, the first due date, and the trade name", () => {
    expect(messageFacts(base)).toEqual({
      kind: "advance_reminder",
      tradeName: "Gimnasio Sol",
      customerName: "Juan Pérez",
      description: "Cuota de diciembre",
      cvu: "0000003100000000000123",
      amountDue: "$ 1.234,56",
      dueDate: "10/12/2026",
      payerPageUrl: "https://api.cobro.test/p/abc123",
    });
  });

  it("once the first due date has passed, shows the surcharge and the second due date", () => {
    const facts = messageFacts({ ...base, kind: "first_due_date_passed", at: new Date("2026-12-11T13:00:00Z") });
    expect(facts.amountDue).toBe("$ 1.334,56");
    expect(facts.dueDate).toBe("20/12/2026");
  });

  it("after a partial payment, shows the balance; never less than nothing", () => {
    expect(messageFacts({ ...base, charge: { ...base.charge, paid_cents: 23456 } }).amountDue).toBe("$ 1.000,00");
    expect(messageFacts({ ...base, charge: { ...base.charge, paid_cents: 200000 } }).amountDue).toBe("$ 0,00");
  });

  it("falls back to the account holder's name without a fantasy name", () => {
    expect(messageFacts({ ...base, merchant: { fantasyName: " ", accountHolderName: "Sol Deportes SRL" } }).tradeName).toBe("Sol Deportes SRL");
  });

  it("writes a short-lived charge's due date with its Argentina time", () => {
    const charge = { ...base.charge, due_dates: ["2026-12-09T18:30:00Z"], first_due_at: new Date("2026-12-09T18:30:00Z") };
    expect(messageFacts({ ...base, kind: "initial", charge }).dueDate).toBe("09/12/2026 a las 15:30");
  });

  it("a confirmation carries the amount received", () => {
    const facts = messageFacts({ ...base, kind: "payment_confirmation", charge: { ...base.charge, paid_cents: 23456 }, receivedCents: 23456 });
    expect(facts).toMatchObject({ amountReceived: "$ 234,56", amountDue: "$ 1.000,00" });
  });

  it("refuses a draft, which has nothing to notify", () => {
    expect(() => messageFacts({ ...base, charge: { ...base.charge, amount_cents: null } })).toThrow(RangeError);
  });
});

describe("emailContent", () => {
  it("has a Spanish subject, and text and HTML parts with the amount, the CVU, the due date, the description and the link", () => {
    const email = emailContent(messageFacts(base));
    expect(email.subject).toBe("Recordatorio: tu pago a Gimnasio Sol vence el 10/12/2026");
    for (const part of [email.text, email.html]) {
      for (const value of ["Juan Pérez", "$ 1.234,56", "0000003100000000000123", "10/12/2026", "Cuota de diciembre", "https://api.cobro.test/p/abc123"])
        expect(part).toContain(value);
    }
    expect(email.text).toContain("Monto a pagar: $ 1.234,56\nCVU para transferir: 0000003100000000000123\nVencimiento: 10/12/2026");
    expect(email.html).toContain('<a href="https://api.cobro.test/p/abc123"');
    expect(email.html).toMatch(/^<!DOCTYPE html><html lang="es">/);
  });

  it("loads nothing from outside: no images, stylesheets, scripts or remote fonts", () => {
    const { html } = emailContent(messageFacts(base));
    expect(html).not.toMatch(/<(img|link|script|iframe|object|embed|style)\b/i);
    expect(html).not.toMatch(/url\(|@import|src=/i);
    expect(html.match(/https?:\/\/[^"<\s]+/g)).toEqual(["https://api.cobro.test/p/abc123"]); // the payer page, a link the payer follows
  });

  it("escapes every interpolated value in the HTML part and keeps the subject on one line", () => {
    const hostile = "<script>alert('x')</script> & \"q\"";
    const email = emailContent(
      messageFacts({
        ...base,
        merchant: { fantasyName: `Sol\r\nBcc: victim@example.com ${hostile}`, accountHolderName: "" },
        charge: { ...base.charge, description: hostile, customer_name: hostile },
      }),
    );
    expect(email.html).not.toContain("<script>");
    expect(email.html).not.toContain("'x'");
    expect(email.html).toContain("&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62; &#38; &#34;q&#34;");
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.text).toContain(hostile); // the text part is text: nothing to escape
  });

  it("each kind has its own subject", () => {
    const subjects = (["initial", "advance_reminder", "due_date", "first_due_date_passed", "second_due_date"] as const).map(
      (kind) => emailContent(messageFacts({ ...base, kind })).subject,
    );
    expect(new Set(subjects).size).toBe(5);
    expect(emailContent(messageFacts({ ...base, kind: "payment_confirmation", receivedCents: 1000 })).subject).toBe("Recibimos tu pago a Gimnasio Sol");
  });

  it("a confirmation says what was received and what remains; paid in full, it asks for no more transfers", () => {
    const partial = emailContent(messageFacts({ ...base, kind: "payment_confirmation", charge: { ...base.charge, paid_cents: 23456 }, receivedCents: 23456 }));
    expect(partial.text).toContain("Monto recibido: $ 234,56\nSaldo pendiente: $ 1.000,00\nCVU para transferir el saldo: 0000003100000000000123");
    const full = emailContent(messageFacts({ ...base, kind: "payment_confirmation", charge: { ...base.charge, paid_cents: 123456 }, receivedCents: 123456 }));
    expect(full.text).toContain("Saldo pendiente: $ 0,00");
    expect(full.text).not.toContain("CVU para transferir");
  });
});

describe("escapeHtml", () => {
  it("turns every markup character into an entity", () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe("&#60;a href=&#34;x&#34; onclick=&#39;y&#39;&#62;&#38;&#60;/a&#62;");
  });
});

describe("chat template parameters", () => {
  it("are the trade name, the amount, the CVU, the due date and the link, in es_AR", () => {
    expect(chatContent(messageFacts(base))).toEqual({
      kind: "advance_reminder",
      languageCode: "es_AR",
      parameters: ["Gimnasio Sol", "$ 1.234,56", "0000003100000000000123", "10/12/2026", "https://api.cobro.test/p/abc123"],
    });
  });

  it("for a confirmation: the amount received, then the balance as a sixth", () => {
    const facts = messageFacts({ ...base, kind: "payment_confirmation", charge: { ...base.charge, paid_cents: 23456 }, receivedCents: 23456 });
    expect(chatParameters(facts)).toEqual([
      "Gimnasio Sol",
      "$ 234,56",
      "0000003100000000000123",
      "10/12/2026",
      "https://api.cobro.test/p/abc123",
      "$ 1.000,00",
    ]);
  });

  it("are single lines, never empty (the provider refuses line breaks, tabs and empty parameters)", () => {
    const facts = messageFacts({ ...base, merchant: { fantasyName: "Gimnasio\n\tSol     Norte", accountHolderName: "" }, cvu: null });
    expect(chatParameters(facts).slice(0, 3)).toEqual(["Gimnasio Sol Norte", "$ 1.234,56", "—"]);
  });
});
