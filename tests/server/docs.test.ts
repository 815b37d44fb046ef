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

test("the README stays a front door: at most 12 KB", () => {
  expect(Buffer.byteLength(readFileSync(join(ROOT, "README.md"), "utf8"))).toBeLessThanOrEqual(12 * 1024);
});

test("only the conformance page speaks of the specification by its name", () => {
  const offending = markdownFiles()
    .filter((file) => relative(ROOT, file) !== "docs/spec-conformance.md" && !relative(ROOT, file).startsWith("assets/"))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .flatMap((line, i) => (/\bSPEC\b/.test(line) ? [`${relative(ROOT, file)}:${i + 1}`] : [])),
    );
  expect(offending).toEqual([]);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[^\p{L}\p{N} -]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("```")) fence = !fence;
    const m = !fence && /^#{1,6} (.*)$/.exec(line);
    if (!m) continue;
    const base = anchorOf(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n ? `${base}-${n}` : base);
  }
  return anchors;
}

test("every link between the documents leads to a file and heading that exist", () => {
  const broken: string[] = [];
  const files = markdownFiles();
  for (const file of files) {
    let fence = false;
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, i) => {
        if (line.startsWith("```")) fence = !fence;
        if (fence) return;
        for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/i.test(target!) || target!.startsWith("/")) continue; // web addresses and app paths
          const [path, anchor] = target!.split("#") as [string, string | undefined];
          const dest = path ? join(file, "..", path) : file;
          const at = `${relative(ROOT, file)}:${i + 1} → ${target}`;
          if (!existsSync(dest)) broken.push(`${at} (no such file)`);
          else if (anchor && dest.endsWith(".md") && !anchorsOf(dest).has(anchor)) broken.push(`${at} (no such heading)`);
        }
      });
  }
  // the check must have had links to follow
  expect(files.length).toBeGreaterThan(20);
  expect(broken).toEqual([]);
});

test("the configuration page lists every flag of every command, as --help has them", async () => {
  const { configurationDoc, CONFIGURATION_DOC } = await import("../../scripts/docs-config");
  const { COMMANDS } = await import("../../src/main");
  const { flagHelp } = await import("../../src/config");
  const { current, wanted } = configurationDoc(ROOT);
  // out of date: run `bun scripts/docs-config.ts`
  expect(current).toBe(wanted);
  const missing = Object.keys(COMMANDS).flatMap((command) =>
    [...flagHelp(command).matchAll(/^ {2}(--[a-z0-9-]+)/gm)].map((m) => m[1]!).filter((flag) => !current.includes(`\`${flag}`)).map((flag) => `${command} ${flag}`),
  );
  expect(Object.keys(COMMANDS).length).toBeGreaterThan(5);
  expect(missing).toEqual([]);
  expect(CONFIGURATION_DOC).toBe("docs/operations/configuration.md");
});

test("the audit log page lists every action the log records", async () => {
  const { auditDoc } = await import("../../scripts/docs-config");
  const { AUDIT_ACTION_NAMES } = await import("../../src/features/audit/actions");
  const { current, wanted } = auditDoc(ROOT);
  // out of date: run `bun scripts/docs-config.ts`
  expect(current).toBe(wanted);
  expect(AUDIT_ACTION_NAMES.length).toBeGreaterThan(10);
  expect(AUDIT_ACTION_NAMES.filter((action) => !current.includes(`\`${action}\``))).toEqual([]);
});
