/** Files for the CLI: folders walked recursively, mbox files split into their messages. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export interface InputFile {
  /** path, or path#n for the n-th message of an mbox */
  name: string;
  bytes: Uint8Array;
}

/** Every regular file under the given paths (hidden files skipped), sorted within a folder. */
export function expandPaths(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path).sort()) if (!name.startsWith(".")) walk(join(path, name));
    } else if (stat.isFile()) out.push(path);
  };
  for (const p of paths) walk(p);
  return out;
}


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

export function* readInputs(paths: string[]): Generator<InputFile> {
  for (const path of paths) {
    const bytes = new Uint8Array(readFileSync(path));
    const messages = splitMbox(bytes);
    if (!messages) yield { name: path, bytes };
    else for (let i = 0; i < messages.length; i++) yield { name: `${path}#${i + 1}`, bytes: messages[i]! };
  }
}

