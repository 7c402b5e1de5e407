#!/usr/bin/env node
// `cobro`: the integrator's command line for a Cobro Sandbox, on the SDK's generated clients.
import { chargeCommands } from "./charges.js";
import { clockCommands } from "./clock.js";
import { contextOf, helpOf, parseCommand, type Command } from "./command.js";
import { eventCommands } from "./events.js";
import { listenCommands } from "./listen.js";
import { loginCommands } from "./login.js";
import { CliError, Output, toCliError } from "./output.js";
import { testTokenCommands } from "./test-tokens.js";
import { triggerCommands } from "./trigger.js";
import { unmatchedCommands } from "./unmatched.js";

export const COMMANDS: Command[] = [
  ...loginCommands,
  ...listenCommands,
  ...triggerCommands,
  ...clockCommands,
  ...chargeCommands,
  ...eventCommands,
  ...unmatchedCommands,
  ...testTokenCommands,
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.join(" ").length));
  return [
    "Usage: cobro <command> [options]",
    "",
    "The command line for a Cobro Sandbox: sign in as the integration admin, forward the Sandbox's webhooks",
    "to a local receiver, and make events happen.",
    "",
    "Commands:",
    ...COMMANDS.map((command) => `  ${command.name.join(" ").padEnd(width)}  ${command.summary}`),
    "",
    "Every command takes --profile NAME (several Sandboxes or admins), --json (one JSON document for scripts)",
    "and --help. The APIs default to the Sandbox `npm start` runs (http://localhost:3000, 3001, 3002). For",
    "other ports give `cobro login` --integration-url, --auth-url and --admin-url (kept in the profile);",
    "--base-url is one address that serves all three (a proxy in front of them).",
    "",
    "A first session:",
    "  cobro login --email integration-admin@example.com",
    "  cobro listen --forward-to http://localhost:8080/webhooks      (in another terminal)",
    "  cobro charges create --reference INV-0001-abc --amount 1500",
    "  cobro trigger payment --reference INV-0001-abc",
    "",
  ].join("\n");
}

export async function main(argv: string[]): Promise<number> {
  const out = new Output(argv.includes("--json"));
  const words = argv.filter((arg) => !arg.startsWith("-"));
  const command = COMMANDS.find((candidate) => candidate.name.every((word, i) => argv[i] === word));
  if (!command) {
    const group = COMMANDS.filter((candidate) => candidate.name[0] === argv[0] && candidate.name.length > 1);
    if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
      process.stdout.write(overview());
      return 0;
    }
    if (group.length > 0 && (argv.length === 1 || argv[1] === "--help" || argv[1] === "-h")) {
      process.stdout.write(`Usage: cobro ${argv[0]} <${group.map((c) => c.name[1]).join("|")}> [options]\n\n`);
      for (const member of group) process.stdout.write(`  ${member.name.join(" ").padEnd(24)}  ${member.summary}\n`);
      return 0;
    }
    out.error(new CliError("usage", `unknown command: ${words.slice(0, 2).join(" ") || argv[0]} (see cobro --help)`));
    return 2;
  }
  try {
    const { values, positionals } = parseCommand(command, argv.slice(command.name.length));
    if (values.help) {
      process.stdout.write(helpOf(command));
      return 0;
    }
    await command.run(contextOf(values, positionals));
    return 0;
  } catch (error) {
    const failure = await toCliError(error);
    out.error(failure);
    return failure.code === "usage" ? 2 : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
