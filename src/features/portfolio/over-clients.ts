/** Reading across an MSP's clients: statements over the client ids a chunk at a time (./tasks.ts `rowsPerClient` groups the rows per client). */
import { inChunks } from "../../db/id-set";

/** Client ids per statement: well under PostgreSQL's 65,535 bind parameters. */
export const ID_CHUNK = 1000;

/** Rows of `query` run over the client ids a chunk at a time. */
export function overClients<T>(ids: string[], query: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  return inChunks(ids, ID_CHUNK, query);
}
