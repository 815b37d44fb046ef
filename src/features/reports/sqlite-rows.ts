/**
 * Rows written to SQLite as they are produced, many per statement, without building them all
 * first: a report's 20,000 per-source roll-up rows (140,000 DKIM/SPF result rows) once held as
 * one array of values, its copies and its slices, 50-100 MB of garbage at the end of an upload.
 * One parameter array is reused for every call (bun:sqlite binds an array's values).
 */
import type { Statement } from "bun:sqlite";

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
