/** Files for the CLI: folders walked recursively, mbox files split into their messages. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { splitMbox } from "../../lib/reports/mbox";

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

export function* readInputs(paths: string[]): Generator<InputFile> {
  for (const path of paths) {
    const bytes = new Uint8Array(readFileSync(path));
    const messages = splitMbox(bytes);
    if (!messages) yield { name: path, bytes };
    else for (let i = 0; i < messages.length; i++) yield { name: `${path}#${i + 1}`, bytes: messages[i]! };
  }
}

