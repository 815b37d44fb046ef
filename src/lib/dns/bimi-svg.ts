/**
 * The essentials of the SVG Tiny Portable/Secure profile a BIMI logo must follow (BIMI draft,
 * §"SVG Tiny PS"): root <svg> with baseProfile="tiny-ps" and version="1.2", a <title>, no
 * scripts, no external references, no x=/y= on the root, at most 32 KB.
 */
import { finding, type Finding } from "./types";

export const BIMI_SVG_MAX_BYTES = 32 * 1024;

function attribute(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, "i").exec(tag);
  return m ? (m[2] ?? m[3] ?? "") : null;
}

/** Findings for the logo at `url` whose bytes were fetched. */
export function checkBimiSvg(url: string, svg: Uint8Array): Finding[] {
  const out: Finding[] = [];
  const fix = "Export the logo as SVG Tiny Portable/Secure (SVG Tiny PS); most design tools and the BIMI group's converter do it.";
  if (svg.length > BIMI_SVG_MAX_BYTES) out.push(finding("error", "bimi.svg_too_large", `The BIMI logo at ${url} is ${Math.ceil(svg.length / 1024)} KB; at most 32 KB is allowed.`, "Simplify the logo (fewer paths, no embedded images) until the file is 32 KB or less."));
  const text = new TextDecoder().decode(svg);
  // the root element: the first tag that is not a declaration, comment or processing instruction
  const body = text.replace(/<\?[\s\S]*?\?>/g, "").replace(/<!--[\s\S]*?-->/g, "").replace(/<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>/gi, "");
  const root = /<([A-Za-z_][\w:.-]*)([^>]*)>/.exec(body);
  if (!root || root[1]!.replace(/^.*:/, "").toLowerCase() !== "svg") {
    out.push(finding("error", "bimi.svg_not_svg", `The file at ${url} is not an SVG image.`, fix));
    return out;
  }
  const tag = root[0];
  if (attribute(tag, "baseProfile") !== "tiny-ps") out.push(finding("error", "bimi.svg_profile", `The BIMI logo's <svg> element does not have baseProfile="tiny-ps".`, fix));
  if (attribute(tag, "version") !== "1.2") out.push(finding("error", "bimi.svg_version", `The BIMI logo's <svg> element does not have version="1.2".`, fix));
  if (attribute(tag, "x") !== null || attribute(tag, "y") !== null) out.push(finding("error", "bimi.svg_root_position", "The BIMI logo's <svg> element has x= or y= attributes, which SVG Tiny PS forbids.", "Remove x= and y= from the <svg> element."));
  if (!/<title[\s>][\s\S]*?<\/title>/i.test(body)) out.push(finding("error", "bimi.svg_no_title", "The BIMI logo has no <title> element.", "Add <title>Your company name</title> right inside the <svg> element."));
  if (/<script[\s>/]/i.test(body) || /\son[a-z]+\s*=/i.test(body)) out.push(finding("error", "bimi.svg_script", "The BIMI logo contains a script or an event handler (on…=), which SVG Tiny PS forbids.", "Remove every <script> element and on…= attribute from the file."));
  if (/(xlink:)?href\s*=\s*["']\s*(https?:|\/\/|data:)/i.test(body) || /url\(\s*["']?\s*(https?:|\/\/)/i.test(body) || /<(image|foreignObject|use)\b[^>]*href\s*=\s*["'](?!#)/i.test(body)) {
    out.push(finding("error", "bimi.svg_external_ref", "The BIMI logo refers to outside files or embedded images (href to http(s), data: or url(…)), which SVG Tiny PS forbids.", "Keep everything inside the SVG as vector paths; remove links and embedded images."));
  }
  return out;
}
