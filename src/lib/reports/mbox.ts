/** An mbox file holds several messages, each starting with a "From " line. */
export function splitMbox(bytes: Uint8Array): Uint8Array[] | null {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 5));
  if (head !== "From ") return null;
  const text = new TextDecoder("latin1").decode(bytes);
  const starts: number[] = [];
  const re = /(^|\n)From [^\n]*\n/g;
  for (let m = re.exec(text); m; m = re.exec(text)) starts.push(m.index + m[1]!.length);
  if (starts.length < 2) return null;
  return starts.map((start, i) => {
    const end = starts[i + 1] ?? bytes.length;
    const nl = text.indexOf("\n", start);
    // drop the From_ line; undo mboxrd ">From " quoting is unnecessary for report parsing
    return bytes.subarray(nl + 1, end);
  });
}
