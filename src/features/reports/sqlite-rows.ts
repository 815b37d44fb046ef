/**
 * Rows written to SQLite as they are produced, many per statement, without building them all
 * first: a report's 20,000 per-source roll-up rows (140,000 DKIM/SPF result rows) once held as
 * one array of values, its copies and its slices, 50-100 MB of garbage at the end of an upload.
 * One parameter array is reused for every full call (bun:sqlite binds an array's values).
 */
import type { Database, Statement } from "bun:sqlite";

type Value = string | number | null;

/**
 * The statement of a multi-row INSERT for `rows` rows, compiled once per connection and size:
 * `textOf(rows)` gives its SQL.
 */
export function sizedStatements(sqlite: Database, textOf: (rows: number) => string): (rows: number) => Statement {
  const bySize = new Map<number, Statement>();
  return (rows) => {
    let statement = bySize.get(rows);
    if (!statement) bySize.set(rows, (statement = sqlite.prepare(textOf(rows))));
    return statement;
  };
}

export class RowRunner {
  private readonly buffer: Value[];
  private at = 0;
  /**
   * `statementOf(n)` takes n rows of `columns` values: `rows` at a time, and the last rows
   * that do not fill it a power of two at a time, the largest first (36 rows: 32 and 4). One
   * call per remaining row made a bulk ingest of 100-record files call SQLite 37 times a file.
   */
  constructor(
    private readonly statementOf: (rows: number) => Statement,
    private readonly rows: number,
    private readonly columns: number,
  ) {
    this.buffer = new Array<Value>(rows * columns).fill(null);
  }

  /** Adds one row's values; runs the statement once `rows` rows are in. */
  add(values: readonly Value[]): void {
    const buffer = this.buffer;
    for (let i = 0; i < this.columns; i++) buffer[this.at++] = values[i]!;
    if (this.at === buffer.length) {
      this.statementOf(this.rows).run(buffer);
      this.at = 0;
    }
  }

  /** Runs the rows still waiting, the largest power of two of them first. */
  end(): void {
    let row = 0;
    let left = this.at / this.columns;
    while (left > 0) {
      let size = 1;
      while (size * 2 <= left) size *= 2;
      this.statementOf(size).run(this.buffer.slice(row * this.columns, (row + size) * this.columns));
      row += size;
      left -= size;
    }
    this.at = 0;
  }
}
