// `cobro clock`: the integration's Sandbox clock (real time plus an offset that only grows, until a reset).
import * as admin from "../generated/admin/index.js";
import { apiJson, type ApiJson, type Command, type Context } from "./command.js";
import { CliError } from "./output.js";

function printClock({ out }: Context, clock: ApiJson): void {
  if (out.json) out.document(clock);
  else
    out.fields([
      ["now", clock.now],
      ["today", `${clock.today} (Argentina)`],
      ["offset", `${clock.offsetSeconds} s ahead of real time`],
    ]);
}

export const clockCommands: Command[] = [
  {
    name: ["clock", "show"],
    summary: "Show the integration's Sandbox clock: now, today in Argentina, and how far ahead of real time it is.",
    async run(context) {
      printClock(context, await apiJson(new admin.SandboxApi(context.session.adminConfiguration()).getSandboxClockRaw()));
    },
  },
  {
    name: ["clock", "advance"],
    usage: "DURATION | --to INSTANT",
    summary: "Move the Sandbox clock forward; the charges that came due move (and their events are written) before it answers.",
    details:
      "DURATION is ISO 8601 in weeks, days, hours, minutes and seconds: P1D, PT2H, P1DT12H, P1W.\n" +
      "The clock never moves back: `cobro clock reset` starts it over at real time.",
    options: { to: { type: "string" } },
    optionHelp: { to: "an instant to move to instead (ISO 8601, e.g. 2026-12-01T03:00:00Z)" },
    positionals: true,
    async run(context) {
      const [duration, ...rest] = context.positionals;
      const to = context.values.to as string | undefined;
      if (rest.length > 0 || (duration === undefined) === (to === undefined)) throw new CliError("usage", "give a DURATION (P1D) or --to INSTANT, not both");
      if (to !== undefined && Number.isNaN(new Date(to).getTime())) throw new CliError("usage", `--to is not an ISO 8601 instant: ${to}`);
      const sandboxClockAdvance = to !== undefined ? { advanceTo: new Date(to).toISOString() } : { advanceBy: duration! };
      printClock(context, await apiJson(new admin.SandboxApi(context.session.adminConfiguration()).advanceSandboxClockRaw({ sandboxClockAdvance })));
    },
  },
  {
    name: ["clock", "reset"],
    summary: "Start the Sandbox clock over at real time, to run a walkthrough or tests again from today.",
    details:
      "Only the clock goes back: charges, payments and events stay as the advanced clock left them (an expired\n" +
      "charge stays expired; an open one comes due on real time). The quota counts of the days ahead are cleared.",
    async run(context) {
      printClock(context, await apiJson(new admin.SandboxApi(context.session.adminConfiguration()).resetSandboxClockRaw()));
    },
  },
];
