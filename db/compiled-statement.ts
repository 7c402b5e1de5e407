// Statements of the hot paths (a create, a GET by referenceId, the token checks) compiled once, at start:
// building a Kysely query (its operation tree, immutable, copied at each step) and compiling it to text is
// most of what a statement costs the API process besides the driver, and it made the same text every time.
// The query is still written with Kysely, once, with a placeholder for each of the request's values; what
// is kept is the text and, for each parameter, which of the request's values it is (or the constant the
// query wrote). A run fills in the values and hands the text to the same Kysely instance (`executeQuery`),
// so it goes through the same pool, prepared-statement names (db/prepared-statements.ts), error log and
// result handling as the builder's statements.
//
// What the builder must not do with a placeholder: anything but pass it as a value (no `in` list built from
// an array, no string built from it); an array parameter is passed as one value (`= any(${keys}::text[])`).
// Compiling refuses a text with a placeholder written into it, a parameter made from one (a string built
// from it, an array around it), or a placeholder the text does not use.
// Plugins' `transformQuery` does not run at a request (Cobro's only plugin, db/transactions.ts, leaves
// statements as they are); `transformResult` does, in `executeQuery`.
import {
  createQueryId,
  DummyDriver,
  Kysely,
  NoResultError,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Compilable,
  type CompiledQuery,
  type QueryNode,
  type RawBuilder,
} from "kysely";
import type { Database } from "./schema.ts";

/** Writes statements without running them: Kysely with PostgreSQL's compiler and no connection. */
const writer = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Where a parameter's value comes from: the input's field, or the constant the query was written with. */
type Slot = { field: string } | { constant: unknown };

const PLACEHOLDER = "\u0000cobro-compiled:";

export class CompiledStatement<Input extends Record<string, unknown>, Row> {
  readonly sql: string;
  readonly #slots: readonly Slot[];
  readonly #query: CompiledQuery["query"];

  /**
   * `build` writes the query from its input with `db` (a builder's query, or raw SQL made with Kysely's
   * `sql`); it is called once, with a placeholder for each of the input's fields (`fields`).
   */
  constructor(fields: ReadonlyArray<keyof Input & string>, build: (db: Kysely<Database>, input: Input) => Compilable<Row> | RawBuilder<Row>) {
    const placeholders = Object.fromEntries(fields.map((field) => [field, `${PLACEHOLDER}${field}`])) as unknown as Input;
    const built = build(writer, placeholders);
    const compiled = "isRawBuilder" in built ? built.compile(writer) : built.compile();
    if (compiled.sql.includes(PLACEHOLDER)) throw new Error(`a placeholder was written into the statement's text: ${compiled.sql}`);
    const used = new Set<string>();
    this.#slots = compiled.parameters.map((parameter) => {
      if (typeof parameter === "string" && parameter.startsWith(PLACEHOLDER)) {
        const field = parameter.slice(PLACEHOLDER.length);
        used.add(field);
        return { field };
      }
      // A placeholder inside a constant (a string made from it, an array around it) would be sent as it is.
      if (carriesPlaceholder(parameter)) throw new Error(`a placeholder was made into another value: ${String(parameter)}`);
      return { constant: parameter };
    });
    const unused = fields.filter((field) => !used.has(field));
    if (unused.length > 0) throw new Error(`the statement does not use ${unused.join(", ")}: a placeholder went elsewhere than a parameter`);
    this.sql = compiled.sql;
    this.#query = compiled.query;
  }

  /** The parameters of a run, in the text's order. */
  parameters(input: Input): unknown[] {
    const slots = this.#slots;
    const values = new Array<unknown>(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i]!;
      values[i] = "field" in slot ? input[slot.field] : slot.constant;
    }
    return values;
  }

  /** The rows, as the builder's `execute()`. */
  async execute(db: Kysely<Database>, input: Input): Promise<Row[]> {
    const result = await db.executeQuery<Row>({ sql: this.sql, parameters: this.parameters(input), query: this.#query, queryId: createQueryId() });
    return result.rows;
  }

  /** The first row or undefined, as the builder's `executeTakeFirst()`. */
  async executeTakeFirst(db: Kysely<Database>, input: Input): Promise<Row | undefined> {
    return (await this.execute(db, input))[0];
  }

  /** The first row, or Kysely's NoResultError, as the builder's `executeTakeFirstOrThrow()`. */
  async executeTakeFirstOrThrow(db: Kysely<Database>, input: Input): Promise<Row> {
    const row = (await this.execute(db, input))[0];
    if (row === undefined) throw new NoResultError(this.#query as QueryNode);
    return row;
  }
}

function carriesPlaceholder(value: unknown): boolean {
  if (typeof value === "string") return value.includes(PLACEHOLDER);
  if (Array.isArray(value)) return value.some(carriesPlaceholder);
  if (value !== null && typeof value === "object" && !(value instanceof Date) && !Buffer.isBuffer(value)) return Object.values(value).some(carriesPlaceholder);
  return false;
}

/**
 * A CompiledStatement made at its first run rather than when its module loads: for a statement whose
 * builders come from a module in an import cycle (not initialised yet while this one loads).
 */
export class CompiledAtFirstRun<Input extends Record<string, unknown>, Row> {
  readonly #fields: ReadonlyArray<keyof Input & string>;
  readonly #build: (db: Kysely<Database>, input: Input) => Compilable<Row> | RawBuilder<Row>;
  #compiled: CompiledStatement<Input, Row> | undefined;

  constructor(fields: ReadonlyArray<keyof Input & string>, build: (db: Kysely<Database>, input: Input) => Compilable<Row> | RawBuilder<Row>) {
    this.#fields = fields;
    this.#build = build;
  }

  /** The rows, as the builder's `execute()`; compiles the statement the first time. */
  execute(db: Kysely<Database>, input: Input): Promise<Row[]> {
    if (this.#compiled === undefined) this.#compiled = new CompiledStatement(this.#fields, this.#build);
    return this.#compiled.execute(db, input);
  }
}
