// The Sandbox's sender for a channel without a provider: the message is rendered and recorded as
// `simulated` (the outbox shows exactly what would have gone out), and nothing is sent anywhere.
import type { Sender } from "./sender.ts";

export const simulatedSender: Sender<unknown> = {
  send: async () => ({ outcome: "simulated" }),
  close: async () => {},
};
