// The CSV files operators feed to Cobro's commands (merchants:import, bank-feed:import): RFC 4180, UTF-8
// (a byte-order mark is skipped), comma-separated, blank lines ignored.

/** A record and the line of the file it starts on (1-based), for messages that name it. */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** RFC 4180 records: fields separated by commas, quoted with `"` (doubled inside), records by CRLF or LF. */
export function parseCsv(source: string): string[][] {
  return parseCsvLines(source).map((record) => record.fields);
}

/** The records of `source`, each with the line it starts on (a quoted field may span lines). */
export function parseCsvLines(source: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let recordLine = 1;
  const input = source.replace(/^\uFEFF/, "");
  const endRecord = () => {
    record.push(field);
    if (record.length > 1 || record[0] !== "") records.push({ line: recordLine, fields: record });
    record = [];
    field = "";
  };
  for (let i = 0; i < input.length; i++) {
    const c = input[i]!;
    if (quoted) {
      if (c === '"' && input[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === "\n") line++;
        field += c;
      }
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && input[i + 1] === "\n") i++;
      endRecord();
      line++;
      recordLine = line;
    } else field += c;
  }
  if (field !== "" || record.length > 0) endRecord();
  return records;
}
