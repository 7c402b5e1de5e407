// The one handler type of the Integration API: an operation's handler, typed from the contract by its operationId.
import type { IntegrationCaller } from "../../domain/sign-in/callers.ts";
import type { operations } from "../../generated/types/integration.ts";
import type { OperationHandler } from "../handler-types.ts";

/** The handler of the Integration API operation `Id`; `Answers` are the documented non-success statuses it answers itself (not errors). */
export type Handler<Id extends keyof operations, Answers extends number = never> = OperationHandler<operations[Id], IntegrationCaller, Answers>;
