import { expect, test } from "bun:test";
import type { Query } from "@tanstack/react-query";
import { NAMING_REREAD_MS, NAMING_REREADS, rereadWhileUnnamed } from "./naming";

type Row = { ip: string; ptr: string | null };
const state = (data: Row[] | undefined, dataUpdateCount: number) => ({ state: { data, dataUpdateCount } }) as unknown as Query<Row[], Error, Row[], readonly unknown[]>;

test("a list is read again while a row has no name, NAMING_REREADS times after its first read, and not once every row is named", () => {
  const interval = rereadWhileUnnamed((r: Row) => r.ptr === null);
  const unnamed = [{ ip: "192.0.2.1", ptr: "mail.example.net" }, { ip: "192.0.2.2", ptr: null }];
  expect(interval(state(undefined, 0))).toBe(false);
  for (let read = 1; read <= NAMING_REREADS; read++) expect(interval(state(unnamed, read))).toBe(NAMING_REREAD_MS);
  expect(interval(state(unnamed, NAMING_REREADS + 1))).toBe(false);
  expect(interval(state([{ ip: "192.0.2.2", ptr: "bulk.example.org" }], 1))).toBe(false);
});
