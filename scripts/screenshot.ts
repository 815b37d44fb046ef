/**
 * Screenshots of screens for a person to look at:
 *   bun scripts/screenshot.ts BASE_URL OUT_DIR path[@WIDTH] ...
 * e.g. bun scripts/screenshot.ts http://localhost:8080 /tmp/shots / /app/dns /contact@375
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { launchBrowser } from "../tests/support/browser";

const [base, out, ...paths] = process.argv.slice(2);
if (!base || !out || !paths.length) {
  console.error("usage: bun scripts/screenshot.ts BASE_URL OUT_DIR path[@WIDTH] ...");
  process.exit(2);
}
mkdirSync(out, { recursive: true });
const browser = await launchBrowser();
for (const spec of paths) {
  const [path, width] = spec.split("@");
  const page = await browser.newPage({ viewport: { width: Number(width ?? 1280), height: 900 } });
  await page.goto(base + path!, { waitUntil: "networkidle" });
  await page.waitForTimeout(300);
  const file = join(out, `${(path === "/" ? "root" : path!.replace(/^\//, "").replace(/[/?=&]/g, "_"))}${width ? `-${width}` : ""}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(file);
  await page.close();
}
await browser.close();
