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

export function decodeText(bytes: Uint8Array): DecodedText {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder("utf-16le").decode(bytes.subarray(2)), repaired: false };
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder("utf-16be").decode(bytes.subarray(2)), repaired: false };
  let body = bytes;
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) body = bytes.subarray(3);
  // UTF-16 without a BOM: "<\0?\0" or "\0<\0?"
  if (body.length >= 4 && body[0] === 0x3c && body[1] === 0 && body[2] !== 0 && body[3] === 0) return { text: new TextDecoder("utf-16le").decode(body), repaired: false };
  if (body.length >= 4 && body[0] === 0 && body[1] === 0x3c && body[2] === 0 && body[3] !== 0) return { text: new TextDecoder("utf-16be").decode(body), repaired: false };

  const head = new TextDecoder("latin1").decode(body.subarray(0, 200));
  const declared = /^\s*<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/i.exec(head)?.[1];
  if (declared && SINGLE_BYTE.test(declared)) return { text: new TextDecoder("windows-1252").decode(body), repaired: false };

  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(body), repaired: false };
  } catch {
    return { text: new TextDecoder("utf-8").decode(body), repaired: true };
  }
}
