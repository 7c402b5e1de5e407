// Free text written by others (a charge's description, a payer's or merchant's name) shown to payers
// inside Cobro's own sentences, in pages, emails and chat messages. It is accepted as sent: names and
// descriptions in right-to-left scripts use direction controls legitimately. But an embedding or override
// left open would reorder the sentence around it (a "Trojan Source" display), so a value that carries one
// is shown as a Unicode isolate (FSI … PDI, UAX #9): whatever it opens ends at its own end.

/** The embedding, override and isolate controls whose effect can reach past the end of a value. */
const DIRECTION_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

const FIRST_STRONG_ISOLATE = "\u2068";
const POP_DIRECTIONAL_ISOLATE = "\u2069";

/** The text as shown inside Cobro's sentences: unchanged, or isolated when it carries direction controls. */
export function isolatedForDisplay(text: string): string {
  return DIRECTION_CONTROLS.test(text) ? `${FIRST_STRONG_ISOLATE}${text}${POP_DIRECTIONAL_ISOLATE}` : text;
}
