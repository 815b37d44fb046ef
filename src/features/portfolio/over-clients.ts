/** Reading across an MSP's clients: statements over the client ids a chunk at a time, rows grouped per client. */

/** Client ids per statement: well under PostgreSQL's 65,535 bind parameters. */
export const ID_CHUNK = 1000;

/** Rows of `query` run over the client ids a chunk at a time. */
export async function overClients<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += ID_CHUNK) out.push(...(await query(ids.slice(i, i + ID_CHUNK))));
  return out;
}

/** The rows of each organization, in the order they came. */
export function groupBy<T extends { orgId: string }>(rows: T[]): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const r of rows) {
    const list = map.get(r.orgId);
    if (list) list.push(r);
    else map.set(r.orgId, [r]);
  }
  return map;
}
