import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { getTableName, is, Table } from "drizzle-orm";
import ts from "typescript";
import { SQLITE_ADAPTERS, TABLE_OWNERS, type Owner } from "./ownership";
import * as schema from "./schema";

/**
 * Each feature owns the queries on its own tables (map in `./ownership.ts`); others call its
 * service. This test reads every feature's source and fails for a table touched by a feature
 * that does not own it, and for `bun:sqlite` outside the listed SQLite adapters.
 */

const ROOT = join(import.meta.dir, "..", "..");

/** export name → SQL name of every table in the schema */
const TABLES = new Map<string, string>(
  Object.entries(schema)
    .filter(([, value]) => is(value, Table))
    .map(([name, value]) => [name, getTableName(value as Table)]),
);
const BY_SQL_NAME = new Map([...TABLES].map(([name, sqlName]) => [sqlName, name]));

export interface Touch {
  line: number;
  table: string;
  how: string;
}

/** `…store.t` (ctx.store.t, deps.store.t, store.t) */
function isStoreTables(node: ts.Node): boolean {
  if (!ts.isPropertyAccessExpression(node) || node.name.text !== "t") return false;
  const target = node.expression;
  return (ts.isIdentifier(target) && target.text === "store") || (ts.isPropertyAccessExpression(target) && target.name.text === "store");
}

const SQL_KEYWORD = /\b(?:from|join|into|update|table)\s+"?([a-z_][a-z0-9_]*)"?/gi;
const SQL_KEYWORD_UPPER = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+"?([a-z_][a-z0-9_]*)"?/g;

/** The tables a source file touches: through `store.t`, a schema import, or raw SQL naming them. */
export function tableTouches(source: string, fileName = "file.ts"): Touch[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const touches: Touch[] = [];
  const aliases = new Set<string>();
  const lineOf = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const seen = new Set<string>();
  const add = (node: ts.Node, table: string, how: string) => {
    const key = `${lineOf(node)}:${table}`;
    if (TABLES.has(table) && !seen.has(key)) touches.push({ line: lineOf(node), table, how }), seen.add(key);
  };
  const sqlText = (node: ts.Node, text: string, anyCase: boolean) => {
    for (const match of text.matchAll(anyCase ? SQL_KEYWORD : SQL_KEYWORD_UPPER)) {
      const table = BY_SQL_NAME.get(match[1]!);
      if (table) add(node, table, `raw SQL naming ${match[1]}`);
    }
  };
  const inSqlTemplate = (node: ts.Node): boolean => {
    for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
      if (ts.isTaggedTemplateExpression(n)) return /\bsql(\.raw)?$/.test(n.tag.getText(file));
      if (ts.isCallExpression(n)) return /\.(prepare|query|run|exec)$|\bsql\.raw$/.test(n.expression.getText(file));
    }
    return false;
  };
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node)) {
      if (isStoreTables(node.expression)) add(node, node.name.text, "store.t");
      else if (ts.isIdentifier(node.expression) && aliases.has(node.expression.text)) add(node, node.name.text, `${node.expression.text} = store.t`);
    }
    if (ts.isVariableDeclaration(node) && node.initializer && isStoreTables(node.initializer)) {
      if (ts.isObjectBindingPattern(node.name)) {
        for (const element of node.name.elements) {
          const key = element.propertyName ?? element.name;
          if (ts.isIdentifier(key)) add(element, key.text, "destructured from store.t");
        }
      } else if (ts.isIdentifier(node.name)) aliases.add(node.name.text);
    }
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && /(^|\/)db\/schema(-pg)?(\/|$)/.test(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      if (clause && !clause.isTypeOnly && named && ts.isNamedImports(named)) {
        for (const element of named.elements) if (!element.isTypeOnly) add(element, (element.propertyName ?? element.name).text, "imported from the schema");
      }
    }
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      sqlText(node, node.text, inSqlTemplate(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return touches;
}

/** Every non-test source file under `dir`, relative to the repository. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir))) {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) && !entry.endsWith(".d.ts")) out.push(path);
  }
  return out.sort();
}

function ownerOf(table: string): Owner {
  return TABLE_OWNERS[table as keyof typeof TABLE_OWNERS];
}

describe("table ownership", () => {
  test("every table has an owner, and the map names only tables", () => {
    expect([...TABLES.keys()].filter((t) => !(t in TABLE_OWNERS))).toEqual([]);
    expect(Object.keys(TABLE_OWNERS).filter((t) => !TABLES.has(t))).toEqual([]);
  });

  test("the detector sees store.t, destructuring, aliases, schema imports and raw SQL", () => {
    const source = [
      'import { users, type organizations } from "../../db/schema";',
      "const { domains, memberships: m } = ctx.store.t;",
      "const t = deps.store.t;",
      "await store.db.select().from(store.t.sessions);",
      "t.invitations;",
      'await store.rows(sql`SELECT 1 FROM aggregate_records r join organizations o ON o.id = r.org_id`);',
      'db.prepare("INSERT INTO tls_reports VALUES (?)");',
      'const text = "Pick one from domains you own";',
      "// FROM users in a comment does not count",
    ].join("\n");
    expect(tableTouches(source).map((touch) => `${touch.line}:${touch.table}`)).toEqual([
      "1:users",
      "2:domains",
      "2:memberships",
      "4:sessions",
      "5:invitations",
      "6:aggregateRecords",
      "6:organizations",
      "7:tlsReports",
    ]);
  });

  test("a feature touches only its own tables", () => {
    const problems: string[] = [];
    for (const path of sourceFiles("src/features")) {
      const feature = relative("src/features", path).split("/")[0]!;
      for (const touch of tableTouches(readFileSync(join(ROOT, path), "utf8"), path)) {
        const owner = ownerOf(touch.table);
        if (owner === feature) continue;
        const instead = owner === "db" ? "src/db/ (shared infrastructure)" : `a verb of src/features/${owner}/`;
        problems.push(`${path}:${touch.line}: ${touch.table} (${touch.how}) is owned by ${owner}: call ${instead}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("only the listed SQLite adapters import bun:sqlite under src/features and src/lib", () => {
    const problems: string[] = [];
    for (const path of [...sourceFiles("src/features"), ...sourceFiles("src/lib")]) {
      if (SQLITE_ADAPTERS.includes(path)) continue;
      const file = ts.createSourceFile(path, readFileSync(join(ROOT, path), "utf8"), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node) => {
        if (ts.isStringLiteral(node) && node.text === "bun:sqlite") {
          problems.push(`${path}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: imports bun:sqlite; services use the store (src/db/store.ts), SQLite-only code lives in a listed adapter`);
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
    expect(problems).toEqual([]);
    for (const adapter of SQLITE_ADAPTERS) expect(statSync(join(ROOT, adapter)).isFile()).toBe(true);
  });
});
