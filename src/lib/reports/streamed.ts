/**
 * A document arriving in decompressed pieces. Aggregate XML — the common case, and the shape
 * a decompression bomb takes — is parsed as it arrives, so only its records are ever held,
 * and a malformed one is refused at its first bad byte. Anything else (a mail, JSON, a nested
 * archive) is collected, up to the size of an upload, and parsed whole afterwards.
 */
import { AggregateXmlReader, assertAggregateHead } from "./aggregate";
import { concat, detectContainer, type ChunkConsumer } from "./container";
import { MB, ReportRefusedError, type AggregateReport, type ReportLimits } from "./model";
import { textStream, type TextStream } from "./text";

/** bytes looked at before deciding what the document is */
const HEAD_BYTES = 4096;

export type StreamedResult = { report: AggregateReport; repaired: boolean } | { bytes: Uint8Array };

export class StreamedDocument {
  private head: Uint8Array[] = [];
  private collected: Uint8Array[] | null = null;
  private bytes = 0;
  private xml: { text: TextStream; reader: AggregateXmlReader } | null = null;

  constructor(private readonly limits: ReportLimits) {}

  readonly push: ChunkConsumer = (chunk, final) => {
    this.bytes += chunk.length;
    if (this.xml) this.xml.reader.write(this.xml.text.decode(chunk, final));
    else if (this.collected) {
      if (this.bytes > this.limits.maxInputBytes) throw new ReportRefusedError(`A document in the file decompresses to more than ${MB(this.limits.maxInputBytes)}, the most one that is not XML may take.`, "too_large");
      this.collected.push(chunk);
    } else {
      this.head.push(chunk);
      if (this.bytes >= HEAD_BYTES || final) this.decide(final);
    }
  };

  private decide(final: boolean): void {
    const head = concat(this.head, this.bytes);
    this.head = [];
    if (detectContainer(head) !== "xml") {
      this.collected = [head];
      return;
    }
    const text = textStream(head);
    const start = text.decode(head, final);
    assertAggregateHead(start);
    this.xml = { text, reader: new AggregateXmlReader(this.limits) };
    this.xml.reader.write(start);
  }

  /** After the last piece: the aggregate report, or the whole bytes of another kind of document. */
  result(): StreamedResult {
    if (this.xml) return { report: this.xml.reader.finish(), repaired: this.xml.text.repaired };
    return { bytes: concat(this.collected ?? this.head, this.bytes) };
  }
}
