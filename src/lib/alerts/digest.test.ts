import { describe, expect, test } from "bun:test";
import { extractText, getDocumentProxy } from "unpdf";
import { digestHeadline, digestTables, DIGEST_MAX_ROWS, pointsChange, volumeChange } from "./digest";
import { renderDigestPdf } from "./digest-pdf";
import { sampleDigest } from "./digest-fixture";

async function pdfText(bytes: Uint8Array): Promise<{ pages: number; text: string }> {
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  const { totalPages, text } = await extractText(pdf, { mergePages: true });
  return { pages: totalPages, text };
}

describe("weekly digest content", () => {
  test("messages and pass rate against the week before", () => {
    const [period, messages, rate] = digestHeadline(sampleDigest());
    expect(period).toBe("4 May 2026 – 10 May 2026 · 3 domains");
    expect(messages).toBe("Messages: 15,600 (+11% on the week before: 14,010)");
    expect(rate).toBe("DMARC pass rate: 93.4% (−2.8 pts on the week before: 96.2%)");
  });

  test("tables: domains by volume, status changes, top failing sources, open tasks by priority", () => {
    const [domains, changes, sources, tasks] = digestTables(sampleDigest());
    expect(domains!.rows[0]).toEqual(["acme-dental.example", "protected", "12,480", "+13%", "98.0%", "+2.0 pts"]);
    expect(domains!.rows[1]).toEqual(["acme-mail.example", "vulnerable", "3,120", "+4%", "75.0%", "−22.0 pts"]);
    expect(domains!.rows[2]).toEqual(["newsletters.example", "partial", "0", "", "–", ""]);
    expect(changes!.rows).toEqual([["7 May 2026", "acme-mail.example", "partial → vulnerable"]]);
    expect(sources!.rows[0]).toEqual(["203.0.113.9 (mail.spoofer.test)", "acme-mail.example", "731"]);
    expect(tasks!.rows.map((r) => r[0])).toEqual(["high", "medium"]);
  });

  test("a quiet week says so instead of showing empty tables; long lists are cut with a count", () => {
    const quiet = digestTables(sampleDigest({ statusChanges: [], topFailingSources: [], openTasks: [] }));
    expect(quiet.slice(1).map((t) => [t.rows.length, t.empty])).toEqual([
      [0, "No domain changed status this week."],
      [0, "No source failed DMARC this week."],
      [0, "No open tasks."],
    ]);
    const many = Array.from({ length: DIGEST_MAX_ROWS + 5 }, (_, i) => ({ sourceIp: `192.0.2.${i}`, domain: "acme-mail.example", failedMessages: 100 + i }));
    const sources = digestTables(sampleDigest({ topFailingSources: many }))[2]!;
    expect(sources.rows).toHaveLength(DIGEST_MAX_ROWS);
    expect(sources.rows[0]![0]).toBe(`192.0.2.${DIGEST_MAX_ROWS + 4}`);
    expect(sources.note).toBe("and 5 more");
  });

  test("changes are signed and say when there is nothing to compare", () => {
    expect(pointsChange(90, 90)).toBe("±0 pts");
    expect(pointsChange(null, 90)).toBe("");
    expect(volumeChange(10, 0)).toBe("new");
    expect(volumeChange(0, 0)).toBe("");
    expect(volumeChange(50, 100)).toBe("−50%");
  });
});

describe("weekly digest PDF", () => {
  test("parses, and shows the organization, the period and the figures", async () => {
    const bytes = await renderDigestPdf(sampleDigest());
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    const { pages, text } = await pdfText(bytes);
    expect(pages).toBe(1);
    for (const expected of ["Weekly DMARC digest for Acme Dental Clinic", "4 May 2026", "15,600", "93.4%", "96.2%", "12,480", "acme-mail.example", "203.0.113.9", "731", "Publish a DMARC record with p=quarantine", "partial -> vulnerable"]) {
      expect(text).toContain(expected);
    }
  });

  test("a long digest runs onto more pages, each numbered", async () => {
    const domains = Array.from({ length: DIGEST_MAX_ROWS }, (_, i) => ({ name: `d${i}.example`, status: "protected" as const, messages: 1000 - i, passed: 990 - i, previousMessages: 900, previousPassed: 880 }));
    const tasks = Array.from({ length: DIGEST_MAX_ROWS }, (_, i) => ({ title: `Task number ${i}`, priority: "low" as const, domain: `d${i}.example` }));
    const sources = Array.from({ length: DIGEST_MAX_ROWS }, (_, i) => ({ sourceIp: `192.0.2.${i}`, domain: "d0.example", failedMessages: 100 - i }));
    const changes = Array.from({ length: DIGEST_MAX_ROWS }, (_, i) => ({ domain: `d${i}.example`, at: new Date("2026-05-05T00:00:00Z"), before: "partial" as const, after: "protected" as const }));
    const { pages, text } = await pdfText(await renderDigestPdf(sampleDigest({ domains, openTasks: tasks, topFailingSources: sources, statusChanges: changes })));
    expect(pages).toBeGreaterThan(1);
    expect(text).toContain(`page ${pages} of ${pages}`);
    expect(text).toContain(`Task number ${DIGEST_MAX_ROWS - 1}`);
  });

  test("names outside the standard fonts' characters do not break the PDF", async () => {
    const { text } = await pdfText(await renderDigestPdf(sampleDigest({ organization: { name: "Zürich Ärzte 診療所 ✉" } })));
    expect(text).toContain("Zürich Ärzte ??? ?");
  });
});
