/**
 * Rows written to SQLite as they are produced, many per statement, without building them all
 * first: a report's 20,000 per-source roll-up rows (140,000 DKIM/SPF result rows) once held as
 * one array of values, its copies and its slices, 50-100 MB of garbage at the end of an upload.
 * One parameter array is reused for every call (bun:sqlite binds an array's values). Also the
 * naming of a report's records by id (reverse-dns.ts).
 */
import type { Database, Statement } from "bun:sqlite";

type Value = string | number | null;

export class RowRunner {
  private readonly buffer: Value[];
  private at = 0;
  /**
   * `many` takes `rows` rows of `columns` values, `one` a single row (for the last rows when
   * they do not fill `many`).
   */
  constructor(
    private readonly many: Statement,
    private readonly one: Statement,
    rows: number,
    private readonly columns: number,
  ) {
    this.buffer = new Array<Value>(rows * columns).fill(null);
  }

  /** Adds one row's values; runs `many` once `rows` rows are in. */
  add(values: readonly Value[]): void {
    const buffer = this.buffer;
    for (let i = 0; i < this.columns; i++) buffer[this.at++] = values[i]!;
    if (this.at === buffer.length) {
      this.many.run(buffer);
      this.at = 0;
    }
  }

  /** Runs the rows still waiting, one by one. */
  end(): void {
    for (let row = 0; row < this.at; row += this.columns) this.one.run(this.buffer.slice(row, row + this.columns));
    this.at = 0;
  }
}

/** An address's reverse DNS name and sending service, as aggregate_records and source_names keep them. */
export interface RecordName {
  ip: string;
  ptr: string;
  baseDomain: string | null;
  service: string | null;
  serviceType: string | null;
}

/**
 * Names the records of the aggregate report `reportRowId` whose address `names` holds: the
 * report's record ids read `pageRows` at a time by the report index, then each named by id (one
 * UPDATE per address would read all of a 100,000-record report's rows once per address).
 * `afterPage` runs after each page. Inside the caller's transaction.
 */
export function nameReportRecords(sqlite: Database, reportRowId: string, names: Map<string, RecordName>, pageRows: number, afterPage: () => void): void {
  const update = sqlite.prepare("UPDATE aggregate_records SET ptr = ?, base_domain = ?, service = ?, service_type = ? WHERE id = ?");
  const page = sqlite.prepare("SELECT id, source_ip AS ip FROM aggregate_records WHERE report_id = ? AND id > ? ORDER BY id LIMIT ?");
  for (let after = 0; ; ) {
    const rows = page.all(reportRowId, after, pageRows) as { id: number; ip: string }[];
    if (!rows.length) break;
    for (const { id, ip } of rows) {
      const n = names.get(ip);
      if (n) update.run(n.ptr, n.baseDomain, n.service, n.serviceType, id);
    }
    after = rows[rows.length - 1]!.id;
    afterPage();
  }
}
