/**
 * A small streaming XML tokenizer, specialised for DMARC aggregate reports and safe by
 * construction: no DTD (a DOCTYPE is refused), no entities beyond the five predefined ones and
 * numeric character references (anything else stays as written), every token (text, attribute
 * value, comment, processing instruction, CDATA) bounded, nesting bounded. It scans with
 * indexOf between markup, so text costs no per-character work.
 *
 * It tolerates what real reporters get wrong and a browser-grade parser would recover from:
 * an XML declaration that is not first, a "<" that cannot start a tag ("a < b", "<user@host>")
 * read as text, a stray "&" or an undefined entity left as text, and anything after the
 * document's outermost element (padding, a second document) ignored.
 */
import { ReportRefusedError } from "./model";

export interface XmlSink {
  /** an element opened at `depth` (1 = the document's outermost); `attributes` only when it has any */
  open(name: string, depth: number, attributes: [string, string][] | null): void;
  /** the element at `depth` closed; `text` is the text since the last tag inside it, entities decoded */
  close(name: string, depth: number, text: string): void;
}

export const refusedSyntax = (message: string) =>
  new ReportRefusedError(`The XML is malformed (${message.replace(/\.$/, "")}); it was refused. Ask the reporter for a well-formed report.`);
export const tooLongToken = (cap: number, where: string) =>
  new ReportRefusedError(
    `The XML has a text, attribute value or comment ${where ? `in <${where}> ` : ""}longer than ${cap.toLocaleString("en-US")} characters, more than any report field needs; it was refused.`,
    "too_large",
  );
export const doctypeRefused = () => new ReportRefusedError("The XML declares a DOCTYPE, which is refused for safety (no DTDs or entities are processed).");

const LT = 60; // <
const GT = 62; // >
const SLASH = 47;
const BANG = 33;
const QUESTION = 63;
const EQ = 61;
const DQUOTE = 34;
const SQUOTE = 39;

const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13;
/** letters, "_", ":" and anything non-ASCII may start a name */
const isNameStart = (c: number) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58 || c >= 0xc0;
/** …and digits, "-", "." may follow */
const isNameChar = (c: number) => isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 0xb7;

const PREDEFINED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/** Decodes the five predefined entities and numeric references; anything else stays as written. */
export function decodeEntities(s: string): string {
  let amp = s.indexOf("&");
  if (amp < 0) return s;
  let out = "";
  let last = 0;
  while (amp >= 0) {
    const semi = s.indexOf(";", amp + 1);
    if (semi < 0) break;
    let replacement: string | undefined;
    if (semi - amp <= 10) {
      const name = s.slice(amp + 1, semi);
      replacement = PREDEFINED[name];
      if (replacement === undefined && name.charCodeAt(0) === 35) {
        const hex = name.charCodeAt(1) === 120 || name.charCodeAt(1) === 88;
        const digits = name.slice(hex ? 2 : 1);
        if (digits && (hex ? /^[0-9a-f]+$/i : /^[0-9]+$/).test(digits)) {
          const code = Number.parseInt(digits, hex ? 16 : 10);
          if (code === 9 || code === 10 || code === 13 || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff)) replacement = String.fromCodePoint(code);
        }
      }
    }
    if (replacement === undefined) {
      amp = s.indexOf("&", amp + 1);
      continue;
    }
    out += s.slice(last, amp) + replacement;
    last = semi + 1;
    amp = s.indexOf("&", last);
  }
  return last === 0 ? s : out + s.slice(last);
}

/** a chunk up to this long is joined whole to what is pending (XmlTokenizer.write) */
const JOIN_WHOLE = 4096;

/** what an incomplete "<!" may still become */
const BANG_FORMS = ["<!--", "<![CDATA[", "<!DOCTYPE"];

export interface XmlBounds {
  /** characters of one token */
  maxTokenChars: number;
  /** nesting depth */
  maxDepth: number;
}

export class XmlTokenizer {
  /** input not yet consumed: an incomplete token at the end of what was written */
  private pending = "";
  /** names as written, for matching close tags */
  private readonly raw: string[] = [];
  /** local names (prefix dropped), `names[depth - 1]` */
  readonly names: string[] = [];
  /** text gathered since the last tag (only kept when it may be an element's value) */
  private text = "";
  /** whether the element being read has had an element in it */
  private hadChild = false;
  private started = false;
  /** the outermost element closed: the rest is ignored */
  private ended = false;

  constructor(
    private readonly sink: XmlSink,
    private readonly bounds: XmlBounds,
  ) {}

  /** whether the outermost element was opened, and closed */
  get state(): "empty" | "open" | "closed" {
    return this.ended ? "closed" : this.started ? "open" : "empty";
  }

  /** the outermost element's name as written */
  rawRoot(): string {
    return this.raw[0] ?? "";
  }

  /** the element being read, for refusals */
  where(): string {
    return this.names[this.names.length - 1] ?? "";
  }

  write(chunk: string): void {
    if (this.ended) return;
    if (this.pending.length && chunk.length > JOIN_WHOLE) {
      // what is pending joins only the start of the chunk, up to the end of its first tag
      // (where the pending token most likely ends), not the whole chunk: a long chunk is then
      // read in place, never copied into a joined string (a copy of every chunk, and garbage).
      // Once only: when the pending token runs on (a long comment), the rest joins it whole.
      const lt = chunk.indexOf("<");
      const gt = lt < 0 ? -1 : chunk.indexOf(">", lt);
      if (gt >= 0 && gt + 1 < chunk.length) {
        this.read(chunk.slice(0, gt + 1));
        this.read(chunk.slice(gt + 1));
        return;
      }
    }
    this.read(chunk);
  }

  /** Reads `chunk` after what is pending (joined to it). */
  private read(chunk: string): void {
    if (this.ended) return;
    const buf = this.pending.length ? this.pending + chunk : chunk;
    this.pending = "";
    const cap = this.bounds.maxTokenChars;
    const len = buf.length;
    let pos = 0;
    while (pos < len) {
      const lt = buf.indexOf("<", pos);
      if (lt < 0) {
        // text running past the end of this piece: keep it, within the bound (blanks outside the root go)
        this.keepText(buf, pos, len, false);
        if (this.raw.length > 0) this.pending = buf.slice(pos);
        return;
      }
      const c = buf.charCodeAt(lt + 1);
      if (c !== c) {
        // "<" is the last character so far
        this.keepText(buf, pos, lt, false);
        this.pending = buf.slice(pos);
        return;
      }
      if (c === SLASH) {
        const next = this.closeTag(buf, pos, lt);
        if (next < 0) return this.incomplete(buf, pos, lt);
        pos = next;
        if (this.ended) return;
        continue;
      }
      if (c === BANG) {
        const next = this.bang(buf, pos, lt);
        if (next < 0) return this.incomplete(buf, pos, lt);
        pos = next;
        continue;
      }
      if (c === QUESTION) {
        const end = buf.indexOf("?>", lt + 2);
        if (end < 0) return this.incomplete(buf, pos, lt);
        if (end - lt - 2 > cap) throw tooLongToken(cap, this.where());
        this.keepText(buf, pos, lt, true);
        pos = end + 2;
        continue;
      }
      if (!isNameStart(c)) {
        if (this.raw.length === 0) throw refusedSyntax("disallowed character in tag name");
        // "a < b": a "<" that cannot start a tag is text
        pos = this.literalLt(buf, pos, lt);
        continue;
      }
      const next = this.openTag(buf, pos, lt);
      if (next === -1) return this.incomplete(buf, pos, lt);
      pos = next;
    }
  }

  /** text between `from` and `to`: kept when `keep` (it may be part of a value), always bounded */
  private keepText(buf: string, from: number, to: number, keep: boolean): void {
    if (to <= from) return;
    const cap = this.bounds.maxTokenChars;
    if (this.raw.length === 0) {
      for (let i = from; i < to; i++) if (!isSpace(buf.charCodeAt(i))) throw refusedSyntax("text data outside of root node");
      return;
    }
    if (this.text.length + (to - from) > cap) throw tooLongToken(cap, this.where());
    if (keep) this.text += decodeEntities(buf.slice(from, to));
  }

  private incomplete(buf: string, pos: number, lt: number): void {
    const cap = this.bounds.maxTokenChars;
    // a tag, comment or PI that has not ended within the bound never will
    if (buf.length - lt > cap + 1024) throw tooLongToken(cap, this.where());
    this.keepText(buf, pos, lt, false);
    this.pending = buf.slice(pos);
  }

  private literalLt(buf: string, pos: number, lt: number): number {
    this.keepText(buf, pos, lt, true);
    if (this.text.length + 1 > this.bounds.maxTokenChars) throw tooLongToken(this.bounds.maxTokenChars, this.where());
    this.text += "<";
    return lt + 1;
  }

  private closeTag(buf: string, pos: number, lt: number): number {
    const gt = buf.indexOf(">", lt + 2);
    if (gt < 0) return -1;
    const depth = this.raw.length;
    const expected = this.raw[depth - 1];
    let nameEnd = gt;
    while (nameEnd > lt + 2 && isSpace(buf.charCodeAt(nameEnd - 1))) nameEnd--;
    if (expected === undefined || nameEnd - (lt + 2) !== expected.length || !buf.startsWith(expected, lt + 2)) {
      throw refusedSyntax(expected === undefined ? "unexpected close tag" : `unexpected close tag </${buf.slice(lt + 2, Math.min(nameEnd, lt + 66))}> inside <${expected}>`);
    }
    let text = this.text;
    if (lt > pos) {
      if (text.length + (lt - pos) > this.bounds.maxTokenChars) throw tooLongToken(this.bounds.maxTokenChars, this.where());
      // an element with elements in it has no value: the blanks after its last child are not read
      if (this.hadChild) text = "";
      else {
        const raw = buf.slice(pos, lt);
        text = text.length ? text + decodeEntities(raw) : decodeEntities(raw);
      }
    }
    this.text = "";
    this.hadChild = true;
    const name = this.names[depth - 1]!;
    this.raw.pop();
    this.names.pop();
    this.sink.close(name, depth, text);
    if (depth === 1) this.ended = true;
    return gt + 1;
  }

  /** "<!": a comment, CDATA, or a refused DOCTYPE; anything else is a syntax error */
  private bang(buf: string, pos: number, lt: number): number {
    const cap = this.bounds.maxTokenChars;
    if (buf.startsWith("<!--", lt)) {
      const end = buf.indexOf("-->", lt + 4);
      if (end < 0) return -1;
      if (end - lt - 4 > cap) throw tooLongToken(cap, this.where());
      this.keepText(buf, pos, lt, true);
      return end + 3;
    }
    if (buf.startsWith("<![CDATA[", lt)) {
      const end = buf.indexOf("]]>", lt + 9);
      if (end < 0) return -1;
      if (this.raw.length === 0) throw refusedSyntax("CDATA outside of root node");
      this.keepText(buf, pos, lt, true);
      if (this.text.length + (end - lt - 9) > cap) throw tooLongToken(cap, this.where());
      this.text += buf.slice(lt + 9, end);
      return end + 3;
    }
    const head = buf.slice(lt, lt + 9);
    if (head.toUpperCase() === "<!DOCTYPE") throw doctypeRefused();
    // still too short to tell
    if (BANG_FORMS.some((form) => form.startsWith(head.toUpperCase()))) return -1;
    throw refusedSyntax("incorrect syntax");
  }

  /** a start tag; -1 when it runs past the end of `buf` */
  private openTag(buf: string, pos: number, lt: number): number {
    const len = buf.length;
    let j = lt + 1;
    let c = 0;
    let colon = -1;
    for (; j < len; j++) {
      c = buf.charCodeAt(j);
      if (!isNameChar(c)) break;
      if (c === 58) colon = j;
    }
    if (j >= len) return -1;
    if (!(isSpace(c) || c === GT || c === SLASH)) {
      // "<user@example.com>" inside a value: text, as a recovering parser reads it
      if (this.raw.length === 0) throw refusedSyntax("disallowed character in tag name");
      return this.literalLt(buf, pos, lt);
    }
    const rawName = buf.slice(lt + 1, j);
    const name = colon < 0 ? rawName : buf.slice(colon + 1, j);
    let attributes: [string, string][] | null = null;
    let selfClosing = false;
    const cap = this.bounds.maxTokenChars;
    for (;;) {
      while (j < len && isSpace(buf.charCodeAt(j))) j++;
      if (j >= len) return -1;
      c = buf.charCodeAt(j);
      if (c === GT) {
        j++;
        break;
      }
      if (c === SLASH) {
        if (j + 1 >= len) return -1;
        if (buf.charCodeAt(j + 1) !== GT) throw refusedSyntax(`unexpected "/" in <${rawName}>`);
        selfClosing = true;
        j += 2;
        break;
      }
      const attrStart = j;
      while (j < len && isNameChar(buf.charCodeAt(j))) j++;
      if (j >= len) return -1;
      if (j === attrStart) throw refusedSyntax(`disallowed character in the attributes of <${rawName}>`);
      const attrName = buf.slice(attrStart, j);
      while (j < len && isSpace(buf.charCodeAt(j))) j++;
      if (j >= len) return -1;
      if (buf.charCodeAt(j) !== EQ) throw refusedSyntax(`attribute ${attrName} of <${rawName}> has no value`);
      j++;
      while (j < len && isSpace(buf.charCodeAt(j))) j++;
      if (j >= len) return -1;
      const quote = buf.charCodeAt(j);
      if (quote !== DQUOTE && quote !== SQUOTE) throw refusedSyntax(`attribute ${attrName} of <${rawName}> is not quoted`);
      const close = buf.indexOf(quote === DQUOTE ? '"' : "'", j + 1);
      if (close < 0) {
        if (len - j > cap) throw tooLongToken(cap, name);
        return -1;
      }
      if (close - j - 1 > cap) throw tooLongToken(cap, name);
      (attributes ??= []).push([attrName, decodeEntities(buf.slice(j + 1, close))]);
      j = close + 1;
    }
    // the text before a start tag is never a value: only its bound matters
    this.keepText(buf, pos, lt, false);
    this.text = "";
    const depth = this.raw.length + 1;
    if (depth > this.bounds.maxDepth) throw new ReportRefusedError(`The XML nests elements more than ${this.bounds.maxDepth} deep; a DMARC report needs 5. It was refused.`);
    this.started = true;
    this.raw.push(rawName);
    this.names.push(name);
    this.hadChild = false;
    this.sink.open(name, depth, attributes);
    if (selfClosing) {
      this.raw.pop();
      this.names.pop();
      this.hadChild = true;
      this.sink.close(name, depth, "");
      if (depth === 1) this.ended = true;
    }
    return j;
  }
}
