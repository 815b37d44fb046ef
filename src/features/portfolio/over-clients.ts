/** Reading across an MSP's clients: statements over the client ids a chunk at a time, rows grouped per client (or by another key). */
import { inChunks } from "../../db/id-set";

/** Client ids per statement: well under PostgreSQL's 65,535 bind parameters. */
export const ID_CHUNK = 1000;

/** Rows of `query` run over the client ids a chunk at a time. */
export function overClients<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  return inChunks(ids, ID_CHUNK, query);
}

/** A row's organization: groupBy's key for rows per client. */
export const byOrg = (row: { orgId: string }): string => row.orgId;

/** The rows of each key (`keyOf`, e.g. `byOrg`), keys in the order first met and rows in the order they came. */
export function groupBy<T, K>(rows: readonly T[], keyOf: (row: T) => K): Map<K, T[]> {
  const map = new Map<K, T[]>();
  for (const r of rows) {
    const key = keyOf(r);
    const list = map.get(key);
    if (list) list.push(r);
    else map.set(key, [r]);
  }
  return map;
}
