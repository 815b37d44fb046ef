/**
 * The documents in the repository stand on their own: no machine paths, no pointers to files a
 * clone does not have, and the README points to the design in docs/.
 */
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const SKIP = new Set(["node_modules", "dist", "data", ".git"]);

function markdownFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name) || e.name.startsWith(".")) return [];
    const full = join(dir, e.name);
    return e.isDirectory() ? markdownFiles(full) : e.name.endsWith(".md") ? [full] : [];
  });
}

test("no document names a machine path or a file outside the repository", () => {
  const files = markdownFiles();
  expect(files.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(["README.md", "docs/design.md", "docs/spec-conformance.md", "docs/store.md"]));
  const offending = files.flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .map((line, i) => ({ line, at: `${relative(ROOT, file)}:${i + 1}` }))
      .filter(({ line }) => /(^|[\s(`'"])\/(work|home|root|Users)\/|\b(SPEC|DESIGN|STYLE)\.md\b|shared folder/.test(line))
      .map(({ at, line }) => `${at}: ${line.trim().slice(0, 120)}`),
  );
  expect(offending).toEqual([]);
});

test("the README points to the design in docs/, and it is there", () => {
  expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("docs/design.md");
  expect(existsSync(join(ROOT, "docs/design.md"))).toBe(true);
});
