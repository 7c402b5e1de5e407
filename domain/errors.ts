// Typed business errors. Domain code throws them with a code and plain details; server/error-responses.ts
// is the one place that turns each code into the documented HTTP status and body shape.

export class DomainError<Details extends Record<string, unknown> = Record<string, unknown>> extends Error {
  readonly code: string;
  readonly details: Details;

  constructor(code: string, message: string, details?: Details) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.details = details ?? ({} as Details);
  }
}

/** One field that failed validation, named by its JSON path (`customer.phoneNumber.number`, `dueDates[1]`). */
export type FieldProblem = { field: string; message: string };

/** A request that breaks a rule the contract's schema cannot express (date relations, conditional fields). */
export class ValidationError extends DomainError<{ problems: FieldProblem[] }> {
  constructor(problems: FieldProblem[]) {
    if (problems.length === 0) throw new Error("a ValidationError needs at least one problem");
    super("ValidationError", problems[0]!.message, { problems });
    this.name = "ValidationError";
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}
