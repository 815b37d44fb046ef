/**
 * A worker thread's entry, `name`, beside the module that starts it (`importMetaUrl`, its
 * import.meta.url): `name`.ts in the source tree; inside the built executable, where modules
 * live under /$bunfs/root/, the `name`.js entry that scripts/build.ts adds beside the main one.
 */
export function workerEntryUrl(importMetaUrl: string, name: string): string {
  return new URL(`./${name}${importMetaUrl.includes("$bunfs") ? ".js" : ".ts"}`, importMetaUrl).href;
}
