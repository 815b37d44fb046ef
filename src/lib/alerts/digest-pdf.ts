/**
 * The weekly digest as a PDF, drawn in-process with pdf-lib (pure JavaScript, the standard
 * PDF fonts built in: nothing to read from disk, so it works inside the compiled executable).
 * Same content as the mail: digestHeadline and digestTables.
 */
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib";
import { type DigestModel, type DigestTable, digestHeadline, digestTables, digestTitle } from "./digest";

const PAGE = { width: 595.28, height: 841.89 }; // A4 in points
const MARGIN = 48;
const BLUE = rgb(0.114, 0.306, 0.847);
const INK = rgb(0.122, 0.161, 0.216);
const MUTED = rgb(0.42, 0.447, 0.502);
const RULE = rgb(0.898, 0.906, 0.922);
const HEADER_FILL = rgb(0.953, 0.957, 0.965);
const ROW_HEIGHT = 16;
const TEXT_SIZE = 9;

/** Characters the standard fonts (WinAnsi) lack, in their nearest plain form. */
const PLAIN: Record<string, string> = { "→": "->", "−": "-", "‑": "-", "≥": ">=", "≤": "<=", "✓": "v" };

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  plain: (text: string) => string;
}

class Cursor {
  page: PDFPage;
  y: number;
  constructor(
    private doc: PDFDocument,
    private fonts: Fonts,
  ) {
    this.page = this.newPage();
    this.y = PAGE.height - MARGIN;
  }

  private newPage(): PDFPage {
    return this.doc.addPage([PAGE.width, PAGE.height]);
  }

  /** Moves to a new page unless `height` points still fit on this one. */
  need(height: number) {
    if (this.y - height >= MARGIN + 20) return;
    this.page = this.newPage();
    this.y = PAGE.height - MARGIN;
  }

  text(value: string, options: { x?: number; size?: number; bold?: boolean; color?: ReturnType<typeof rgb>; maxWidth?: number } = {}) {
    const font = options.bold ? this.fonts.bold : this.fonts.regular;
    const size = options.size ?? TEXT_SIZE;
    const shown = fit(this.fonts.plain(value), font, size, options.maxWidth ?? PAGE.width - 2 * MARGIN);
    this.page.drawText(shown, { x: options.x ?? MARGIN, y: this.y, size, font, color: options.color ?? INK });
  }
}

/** The text cut with an ellipsis to fit `width`. */
function fit(text: string, font: PDFFont, size: number, width: number): string {
  if (font.widthOfTextAtSize(text, size) <= width) return text;
  let end = text.length;
  while (end > 0 && font.widthOfTextAtSize(`${text.slice(0, end)}…`, size) > width) end--;
  return `${text.slice(0, end)}…`;
}

function drawTable(cursor: Cursor, table: DigestTable) {
  const width = PAGE.width - 2 * MARGIN;
  const total = table.widths.reduce((a, b) => a + b, 0);
  const shares = table.widths.map((w) => w / total);
  const xs = shares.map((_, i) => MARGIN + shares.slice(0, i).reduce((a, b) => a + b, 0) * width);
  const widths = shares.map((s) => s * width - 6);

  cursor.need(28 + 2 * ROW_HEIGHT);
  cursor.y -= 22;
  cursor.text(table.heading, { size: 12, bold: true });
  cursor.y -= 8;
  if (!table.rows.length) {
    cursor.y -= ROW_HEIGHT - 4;
    cursor.text(table.empty, { color: MUTED });
    return;
  }
  const header = () => {
    cursor.page.drawRectangle({ x: MARGIN, y: cursor.y - ROW_HEIGHT + 4, width, height: ROW_HEIGHT, color: HEADER_FILL });
    cursor.y -= ROW_HEIGHT - 8;
    table.columns.forEach((column, i) => cursor.text(column, { x: xs[i]! + 3, bold: true, color: MUTED, maxWidth: widths[i] }));
    cursor.y -= 8;
  };
  header();
  for (const row of table.rows) {
    const before = cursor.page;
    cursor.need(ROW_HEIGHT);
    if (cursor.page !== before) header();
    cursor.y -= ROW_HEIGHT - 4;
    row.forEach((cell, i) => cursor.text(cell, { x: xs[i]! + 3, maxWidth: widths[i] }));
    cursor.y -= 4;
    cursor.page.drawLine({ start: { x: MARGIN, y: cursor.y }, end: { x: MARGIN + width, y: cursor.y }, thickness: 0.5, color: RULE });
  }
  if (table.note) {
    cursor.y -= ROW_HEIGHT - 4;
    cursor.text(table.note, { color: MUTED });
  }
}

/** The digest as PDF bytes. */
export async function renderDigestPdf(model: DigestModel, brand?: { productName: string; primaryColor: string | null } | null): Promise<Uint8Array> {
  // white-label: an MSP's product name and colour on its clients' reports
  const name = brand?.productName || "dmarcwarden";
  const hex = brand?.primaryColor && /^#[0-9a-f]{6}$/i.test(brand.primaryColor) ? brand.primaryColor : null;
  const accent = hex ? rgb(...([1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255) as [number, number, number])) : BLUE;
  const doc = await PDFDocument.create();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const known = new Set(regular.getCharacterSet());
  const plain = (text: string) => [...text].map((c) => (known.has(c.codePointAt(0)!) ? c : (PLAIN[c] ?? "?"))).join("");
  const title = digestTitle(model);
  doc.setTitle(plain(title));
  doc.setAuthor(plain(name));
  doc.setCreator(plain(name));
  doc.setProducer(plain(name));
  doc.setCreationDate(model.period.end);
  doc.setModificationDate(model.period.end);

  const cursor = new Cursor(doc, { regular, bold, plain });
  cursor.y -= 4;
  cursor.text(name, { size: 11, bold: true, color: accent });
  cursor.y -= 24;
  cursor.text(title, { size: 17, bold: true });
  for (const [i, line] of digestHeadline(model).entries()) {
    cursor.y -= i === 0 ? 18 : 15;
    cursor.text(line, { size: i === 0 ? 10 : 11, color: i === 0 ? MUTED : INK });
  }
  for (const table of digestTables(model)) drawTable(cursor, table);

  const pages = doc.getPages();
  pages.forEach((page, i) => {
    // a report for outside contacts has no link into the app (model.link empty)
    const footer = plain([model.organization.name, model.link, `page ${i + 1} of ${pages.length}`].filter(Boolean).join(" · "));
    page.drawText(fit(footer, regular, 8, PAGE.width - 2 * MARGIN), { x: MARGIN, y: MARGIN - 18, size: 8, font: regular, color: MUTED });
  });
  return doc.save();
}
