// What a charge's state says about money still to come, for every reader that asks it.
import type { ChargeState } from "../../db/tables/charges.table.ts";

/** The states in which a charge still waits for money: open, or closed past due short of paid in full (an assignment can still pay it). */
export const WAITING_FOR_MONEY_STATES: ReadonlySet<ChargeState> = new Set(["pending", "partial_payment", "overdue", "partial_overdue"]);

/** The states the time sweep closes a charge into, at its final due instant. */
export const PAST_DUE_STATES: ReadonlySet<ChargeState> = new Set(["overdue", "partial_overdue"]);
