/**
 * Bytes → text for report documents: byte-order marks, UTF-16, a declared single-byte
 * encoding, and invalid UTF-8 (repaired with U+FFFD rather than refused, so one bad byte in
 * a reporter's org name does not lose a whole report).
 */

export interface DecodedText {
  text: string;
  /** true when invalid bytes were replaced */
  repaired: boolean;
}

const SINGLE_BYTE = /^(iso-8859-1|latin-?1|us-ascii|ascii|windows-1252|cp1252)$/i;

type Encoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

/** The encoding of a document, from its first bytes (a BOM, UTF-16 "<", or an XML declaration). */
function encodingOf(head: Uint8Array): Encoding {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head.length >= 2 && head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  const body = head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? head.subarray(3) : head;
  // UTF-16 without a BOM: "<\0?\0" or "\0<\0?"
  if (body.length >= 4 && body[0] === 0x3c && body[1] === 0 && body[2] !== 0 && body[3] === 0) return "utf-16le";
  if (body.length >= 4 && body[0] === 0 && body[1] === 0x3c && body[2] === 0 && body[3] !== 0) return "utf-16be";
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(new TextDecoder("latin1").decode(body.subarray(0, 200)))?.[1];
  return declared && SINGLE_BYTE.test(declared) ? "windows-1252" : "utf-8";
}

/** Decodes a document piece by piece (decompressed chunks), with the rules of decodeText. */
export interface TextStream {
  decode(bytes: Uint8Array, final: boolean): string;
  /** true once invalid bytes were replaced */
  readonly repaired: boolean;
}

/** A TextStream for a document starting with `head` (a BOM is dropped by the decoder). */
export function textStream(head: Uint8Array): TextStream {
  const encoding = encodingOf(head);
  let decoder = new TextDecoder(encoding, { fatal: encoding === "utf-8" });
  let repaired = false;
  return {
    decode(bytes, final) {
      try {
        return decoder.decode(bytes, { stream: !final });
      } catch {
        repaired = true;
        decoder = new TextDecoder(encoding);
        return decoder.decode(bytes, { stream: !final });
      }
    },
    get repaired() {
      return repaired;
    },
  };
}

export function decodeText(bytes: Uint8Array): DecodedText {
  const stream = textStream(bytes);
  const text = stream.decode(bytes, true);
  return { text, repaired: stream.repaired };
}
