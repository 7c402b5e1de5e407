import type { ColumnType } from "kysely";

// Column shapes shared by the tables: what a select returns, what an insert and an update accept.

/** A `timestamptz` the insert must give. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** A `timestamptz` with a default (`now()`), so an insert may leave it out. */
export type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;

/** A `jsonb` column: read as the value, written as its JSON text. */
export type Json<T> = ColumnType<T, string, string>;
