/**
 * insertRows: many rows into one statement as one JSON parameter, on the suite's store (SQLite,
 * or PostgreSQL in the suite's PostgreSQL run). Values come back exactly as given — quotes,
 * backslashes, unicode, NULLs, numbers, booleans — in the order given, with the values every row
 * shares, across more rows than one statement takes; an ON CONFLICT tail applies per row.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { makeTestApp, type TestApp } from "../../tests/support/app";
import { insertRows, ROWS_PER_STATEMENT, type RowsInsert } from "./json-rows";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
  await t.deps.store.rows(sql.raw("CREATE TABLE json_rows_check (org text NOT NULL, at bigint NOT NULL, name text NOT NULL, note text, n bigint, ok boolean, PRIMARY KEY (org, name))"));
});
afterEach(() => t.close());

const INTO: RowsInsert = {
  table: "json_rows_check",
  columns: ["org", "at", "name", "note", "n", "ok"],
  fixed: [sql`${"org-1"}`, sql`${1_700_000_000}`],
  types: ["text", "text", "bigint", "boolean"],
};

type Row = { org: string; at: number | string; name: string; note: string | null; n: number | string | null; ok: boolean | number | null };
async function stored(): Promise<{ org: string; at: number; name: string; note: string | null; n: number | null; ok: boolean | null }[]> {
  const rows = await t.deps.store.rows<Row>(sql.raw("SELECT org, at, name, note, n, ok FROM json_rows_check ORDER BY name"));
  return rows.map((r) => ({ ...r, at: Number(r.at), n: r.n === null ? null : Number(r.n), ok: r.ok === null ? null : Boolean(r.ok) }));
}

test("values come back as given: quotes, backslashes, unicode, NULLs, numbers and booleans, with the shared values", async () => {
  const rows = [
    ["a", `it's "quoted" \\ back\\slash`, 0, true],
    ["b", "ünïcödé — 日本語 🙂 \u00e9\u2028", -42, false],
    ["c", null, null, null],
    ["d", "", 9_007_199_254_740_991, true],
    ["e", "line\nbreak\ttab", 3, null],
  ];
  await t.deps.store.write(() => insertRows(t.deps.store, INTO, rows));
  expect(await stored()).toEqual(
    rows.map(([name, note, n, ok]) => ({ org: "org-1", at: 1_700_000_000, name: name as string, note: note as string | null, n: n as number | null, ok: ok as boolean | null })),
  );
});

test("more rows than one statement takes all go in, in order", async () => {
  const count = ROWS_PER_STATEMENT * 2 + 7;
  const rows = Array.from({ length: count }, (_, i) => [`r${String(i).padStart(5, "0")}`, `note ${i}`, i, i % 2 === 0]);
  await t.deps.store.write(() => insertRows(t.deps.store, INTO, rows));
  const back = await stored();
  expect(back.length).toBe(count);
  expect(back[0]).toEqual({ org: "org-1", at: 1_700_000_000, name: "r00000", note: "note 0", n: 0, ok: true });
  expect(back[count - 1]).toEqual({ org: "org-1", at: 1_700_000_000, name: `r${String(count - 1).padStart(5, "0")}`, note: `note ${count - 1}`, n: count - 1, ok: (count - 1) % 2 === 0 });
  expect(back.every((r, i) => r.n === i && r.note === `note ${i}`)).toBe(true);
});

test("a small perStatement splits the rows and an ON CONFLICT tail updates the rows already there", async () => {
  const upsert: RowsInsert = { ...INTO, perStatement: 2, tail: sql`ON CONFLICT (org, name) DO UPDATE SET note = excluded.note, n = json_rows_check.n + excluded.n` };
  await t.deps.store.write(() => insertRows(t.deps.store, upsert, [["x", "first", 1, true], ["y", "first", 10, true], ["z", "only", 100, false]]));
  await t.deps.store.write(() => insertRows(t.deps.store, upsert, [["y", "second", 5, true], ["x", "second", 2, true]]));
  expect((await stored()).map((r) => [r.name, r.note, r.n])).toEqual([
    ["x", "second", 3],
    ["y", "second", 15],
    ["z", "only", 100],
  ]);
});

test("rows of text only need no types, and no rows writes nothing", async () => {
  const text: RowsInsert = { table: "json_rows_check", columns: ["org", "at", "name", "note"], fixed: [sql`${"org-2"}`, sql`${5}`] };
  await t.deps.store.write(async () => {
    await insertRows(t.deps.store, text, []);
    await insertRows(t.deps.store, text, [["só", "it's"]]);
  });
  expect(await stored()).toEqual([{ org: "org-2", at: 5, name: "só", note: "it's", n: null, ok: null }]);
});
