// The "desde / hasta" of a report: two date inputs (the browser shows them in its own format; the
// report's heading repeats the range as dd/mm/aaaa). Empty fields leave the choice to the API (the
// current month up to today), and the page then fills them with the range it shows.
import type { ApiError } from "../api-error.ts";
import { Field } from "./field.tsx";

export interface DateRange {
  /** `YYYY-MM-DD`, or empty. */
  startDate: string;
  endDate: string;
}

/** The range as query parameters: an empty end is left out. */
export function rangeQuery(range: DateRange): { startDate?: string; endDate?: string } {
  return { ...(range.startDate ? { startDate: range.startDate } : {}), ...(range.endDate ? { endDate: range.endDate } : {}) };
}

export function DateRangeFields({ range, onRange, error }: { range: DateRange; onRange: (range: DateRange) => void; error: ApiError | undefined }) {
  return (
    <div class="filters">
      <Field
        label="Desde"
        type="date"
        name="startDate"
        value={range.startDate}
        onValue={(startDate) => onRange({ ...range, startDate })}
        error={error?.fieldErrors.startDate}
      />
      <Field
        label="Hasta"
        type="date"
        name="endDate"
        value={range.endDate}
        onValue={(endDate) => onRange({ ...range, endDate })}
        error={error?.fieldErrors.endDate}
      />
    </div>
  );
}
