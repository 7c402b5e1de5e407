// `cobro events`: the integration's events with their delivery, and resending one.
import * as admin from "../generated/admin/index.js";
import { apiJson, integerOf, type ApiJson, type Command } from "./command.js";
import { CliError } from "./output.js";

export const eventCommands: Command[] = [
  {
    name: ["events", "list"],
    summary: "List the integration's events (kept 30 days), newest first, with where each delivery stands.",
    options: { event: { type: "string" }, delivered: { type: "string" }, limit: { type: "string" }, offset: { type: "string" } },
    optionHelp: {
      event: "only events of this name (payment_request.payment_received, payment_request.expired, payment.unmatched, payment.returned, payment.return_failed)",
      delivered: "true: only delivered ones; false: only the others",
      limit: "at most this many (default 20, at most 100)",
      offset: "skip this many",
    },
    async run({ values, session, out }) {
      const delivered = values.delivered as string | undefined;
      if (delivered !== undefined && delivered !== "true" && delivered !== "false") throw new CliError("usage", "--delivered is true or false");
      const page = await apiJson(
        new admin.EventsApi(session.adminConfiguration()).listEventsRaw({
          event: values.event as string | undefined,
          delivered: delivered === undefined ? undefined : delivered === "true",
          limit: integerOf(values.limit as string | undefined, "limit"),
          offset: integerOf(values.offset as string | undefined, "offset"),
        }),
      );
      if (out.json) {
        out.document(page);
        return;
      }
      out.table(
        ["CREATED", "EVENT", "REFERENCE", "DELIVERY", "EVENT ID"],
        page.items.map((item: ApiJson) => [
          item.createdAt,
          item.event,
          item.payload?.referenceId ?? "",
          item.deliveryStatus + (item.notSentReason ? ` (${item.notSentReason})` : ""),
          item.eventId,
        ]),
      );
      out.line(out.paint(`${page.items.length} of ${page.total}`, "dim"));
    },
  },
  {
    name: ["events", "resend"],
    usage: "EVENT_ID",
    summary: "Deliver an event again now to the integration's webhook destination (same payload and webhook id).",
    positionals: true,
    async run({ positionals, session, out }) {
      const [eventId, ...rest] = positionals;
      if (eventId === undefined || rest.length > 0) throw new CliError("usage", "give one EVENT_ID");
      const event = await apiJson(new admin.EventsApi(session.adminConfiguration()).resendEventRaw({ eventId }));
      if (out.json) out.document(event);
      else
        out.fields([
          ["event", event.event],
          ["eventId", event.eventId],
          ["delivery", event.deliveryStatus],
          ["target", event.targetUrl],
          ["next attempt", event.nextAttemptAt],
        ]);
    },
  },
];
