/**
 * `npm install` stays quiet and the manifest honest: every installed package with an install
 * script is covered by package.json's allowScripts (npm lists the others after each install),
 * and no direct dependency goes unused by the code.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** Every package.json under node_modules (nested ones too), as name, version and scripts. */
function installedPackages(dir = join(ROOT, "node_modules")): { name: string; version: string; scripts: Record<string, string> }[] {
  const out: { name: string; version: string; scripts: Record<string, string> }[] = [];
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith(".")) continue;
    const names = entry.startsWith("@") ? readdirSync(join(dir, entry)).map((n) => join(entry, n)) : [entry];
    for (const name of names) {
      const file = join(dir, name, "package.json");
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, "utf8"));
      out.push({ name: pkg.name ?? name, version: pkg.version, scripts: pkg.scripts ?? {} });
      out.push(...installedPackages(join(dir, name, "node_modules")));
    }
  }
  return out;
}

describe("package.json", () => {
  test("allowScripts covers every installed package that has an install script", () => {
    const allowed = Object.entries(manifest.allowScripts ?? {}) as [string, boolean][];
    const covered = (name: string, version: string) => allowed.some(([key, value]) => value !== undefined && (key === name || key === `${name}@${version}`));
    const withScripts = installedPackages().filter((p) => ["preinstall", "install", "postinstall"].some((s) => p.scripts[s]));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((p) => !covered(p.name, p.version)).map((p) => `${p.name}@${p.version}`)).toEqual([]);
  });

  test("happy-dom is not a direct dependency: the UI tests load it through @happy-dom/global-registrator", () => {
    expect(Object.keys({ ...manifest.dependencies, ...manifest.devDependencies })).not.toContain("happy-dom");
    expect(readFileSync(join(ROOT, "tests/setup/happydom.ts"), "utf8")).toContain("@happy-dom/global-registrator");
  });
});
