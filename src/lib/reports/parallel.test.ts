/** Parsing on worker threads: the same answers as parsing here, in order, never far ahead of the caller. */
import { describe, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { fixture, gzip, sampleAggregate, tlsReportJson, xmlBytes } from "../../../tests/support/report-fixtures";
import { ReportRefusedError } from "./model";
import { parseInBackground } from "./parallel";
import { parseReportFile } from "./parse";
import { GROUP_FILES } from "../../features/reports/group-ingest";

const files = [
  gzip(xmlBytes(sampleAggregate("example.com", { reportId: "p-1" }))),
  fixture("truncated.xml"),
  fixture("arf-auth-failure.eml"),
  tlsReportJson("example.com", "p-tls"),
  strToU8("not a report"),
  gzip(xmlBytes(sampleAggregate("example.com", { reportId: "p-2" }))),
];

describe("parseInBackground", () => {
  test("gives each file what parsing it here gives, in the order the files came", async () => {
    const seen: unknown[] = [];
    const stats = { onWorkers: 0, here: 0 };
    for await (const { input, parsed } of parseInBackground(files.entries(), ([, bytes]) => bytes, { workers: 2, stats })) {
      const [i, bytes] = input;
      const here = await parseReportFile(bytes).catch((error: Error) => error);
      if (here instanceof ReportRefusedError) {
        expect(parsed).toBeInstanceOf(ReportRefusedError);
        expect(parsed).toMatchObject({ message: here.message, code: here.code });
      } else expect(parsed).toEqual(here);
      seen.push(i);
    }
    expect(seen).toEqual([0, 1, 2, 3, 4, 5]);
    expect(stats).toEqual({ onWorkers: 6, here: 0 });
  });

  test("reads no more than maxInFlight files ahead of the caller, and leaves large files to the caller", async () => {
    let pulled = 0;
    let consumed = 0;
    let mostAhead = 0;
    function* inputs() {
      for (let i = 0; i < 30; i++) {
        pulled++;
        mostAhead = Math.max(mostAhead, pulled - consumed);
        yield i === 7 ? big : files[0]!;
      }
    }
    const big = xmlBytes(sampleAggregate("example.com", { reportId: "p-big" }));
    expect(big.length).toBeGreaterThan(1000);
    expect(files[0]!.length).toBeLessThan(1000);
    const unparsed: number[] = [];
    let i = 0;
    for await (const { parsed } of parseInBackground(inputs(), (bytes) => bytes, { maxInFlight: 4, maxPreparseBytes: 1000 })) {
      consumed++;
      if (parsed === undefined) unparsed.push(i);
      else expect(parsed).not.toBeInstanceOf(Error);
      i++;
    }
    expect(consumed).toBe(30);
    expect(mostAhead).toBeLessThanOrEqual(5);
    expect(unparsed).toEqual([7]);
  });

  /** Pulls `count` inputs through parseInBackground, taking each only after `pause` ms: how far ahead of the caller the inputs were read at most. */
  async function mostAheadOf(count: number, input: (i: number) => Uint8Array, options: Parameters<typeof parseInBackground>[2], pause = 0) {
    let pulled = 0;
    let consumed = 0;
    let mostAhead = 0;
    function* inputs() {
      for (let i = 0; i < count; i++) {
        pulled++;
        mostAhead = Math.max(mostAhead, pulled - consumed);
        yield input(i);
      }
    }
    for await (const { parsed } of parseInBackground(inputs(), (bytes) => bytes, options)) {
      expect(parsed).not.toBeInstanceOf(Error);
      expect(parsed).toBeDefined();
      consumed++;
      if (pause) await Bun.sleep(pause);
    }
    expect(consumed).toBe(count);
    return mostAhead;
  }

  test("parses more than a whole bulk group ahead of a caller busy writing one", async () => {
    const file = gzip(xmlBytes(sampleAggregate("example.com", { reportId: "p-group" })));
    expect(await mostAheadOf(GROUP_FILES * 3, () => file, { workers: 1 }, 1)).toBeGreaterThan(GROUP_FILES);
  });

  test("holds no more parsed ahead than maxParsedAheadBytes, however many files it may read ahead", async () => {
    const file = xmlBytes(sampleAggregate("example.com", { reportId: "p-held" }));
    // each file's estimate (twice its bytes, uncompressed) fills the budget: one file ahead at a time
    expect(await mostAheadOf(20, () => file, { workers: 1, maxParsedAheadBytes: file.length * 2 }, 1)).toBeLessThanOrEqual(2);
    // room for four files parsed
    const json = JSON.stringify(await parseReportFile(file)).length;
    const four = await mostAheadOf(20, () => file, { workers: 1, maxParsedAheadBytes: json * 4 }, 20);
    expect(four).toBeGreaterThan(2);
    expect(four).toBeLessThanOrEqual(6);
  });
});
