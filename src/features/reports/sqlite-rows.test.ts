import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { RowRunner, sizedStatements } from "./sqlite-rows";

/** a table and a runner of `rows` rows a call, recording the size of every call */
function setup(rows: number) {
  const db = new Database(":memory:", { strict: true });
  db.run("CREATE TABLE t (k TEXT PRIMARY KEY, n INTEGER NOT NULL)");
  const sizes: number[] = [];
  const statementOf = sizedStatements(db, (n) => `INSERT INTO t (k, n) VALUES ${Array.from({ length: n }, () => "(?, ?)").join(", ")} ON CONFLICT (k) DO UPDATE SET n = n + excluded.n`);
  const runner = new RowRunner(
    (n) => {
      sizes.push(n);
      return statementOf(n);
    },
    rows,
    2,
  );
  const stored = () => db.query("SELECT k, n FROM t ORDER BY k").values() as [string, number][];
  return { db, runner, sizes, stored };
}

test("rows go in a full statement at a time, the rest a power of two at a time, every row written once", () => {
  for (const count of [0, 1, 7, 8, 9, 15, 16, 37, 40]) {
    const { runner, sizes, stored } = setup(8);
    const key = (i: number) => `k${String(i).padStart(3, "0")}`;
    for (let i = 0; i < count; i++) runner.add([key(i), i]);
    runner.end();
    expect(stored()).toEqual(Array.from({ length: count }, (_, i) => [key(i), i]));
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(count);
    // full statements first, then the remainder's binary digits, largest first
    const full = Math.floor(count / 8);
    const rest = [4, 2, 1].filter((bit) => count % 8 & bit);
    expect(sizes).toEqual([...Array.from({ length: full }, () => 8), ...rest]);
  }
});

test("rows of one key merge whether they meet in one statement or in two", () => {
  const { runner, stored } = setup(4);
  // 7 rows: a statement of 4, then 2 and 1; "a" appears in the first and the last, "b" twice in the first
  for (const [k, n] of [["a", 1], ["b", 2], ["b", 3], ["c", 4], ["d", 5], ["e", 6], ["a", 10]] as const) runner.add([k, n]);
  runner.end();
  expect(stored()).toEqual([["a", 11], ["b", 5], ["c", 4], ["d", 5], ["e", 6]]);
});

test("a runner is reusable after end, and compiles each size once per connection", () => {
  const { db, runner, sizes, stored } = setup(4);
  let prepared = 0;
  const prepare = db.prepare.bind(db);
  db.prepare = ((text: string) => (prepared++, prepare(text))) as typeof db.prepare;
  const statementOf = sizedStatements(db, (n) => `INSERT INTO t (k, n) VALUES ${Array.from({ length: n }, () => "(?, ?)").join(", ")}`);
  expect(statementOf(2)).toBe(statementOf(2));
  expect(prepared).toBe(1);
  runner.add(["x", 1]);
  runner.end();
  runner.add(["y", 2]);
  runner.add(["z", 3]);
  runner.end();
  expect(stored()).toEqual([["x", 1], ["y", 2], ["z", 3]]);
  expect(sizes).toEqual([1, 2]);
});
