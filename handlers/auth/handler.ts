// The one handler type of the Auth API: an operation's handler, typed from the contract by its operationId.
import type { AuthCaller } from "../../domain/sign-in/callers.ts";
import type { operations } from "../../generated/types/auth.ts";
import type { OperationHandler } from "../handler-types.ts";

/** The handler of the Auth API operation `Id`; `Answers` are the documented non-success statuses it answers itself (not errors). */
export type Handler<Id extends keyof operations, Answers extends number = never> = OperationHandler<operations[Id], AuthCaller, Answers>;
