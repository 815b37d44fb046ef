/**
 * Lists that show sending addresses (Senders, the threat list) are read again while some of
 * their addresses have no PTR name yet: the server looks those names up as it lists them (a
 * lookup answers or gives up within 3 s), so the names and the senders they belong to show
 * without a reload. NAMING_REREADS reads at most, NAMING_REREAD_MS apart.
 */
import type { Query } from "@tanstack/react-query";

export const NAMING_REREAD_MS = 3500;
export const NAMING_REREADS = 2;

/** A react-query `refetchInterval` that reads the list again while `unnamed` says one of its rows has no name yet. */
export function rereadWhileUnnamed<T>(unnamed: (row: T) => boolean) {
  return (query: Query<T[], Error, T[], readonly unknown[]>): number | false =>
    query.state.data?.some(unnamed) && query.state.dataUpdateCount <= NAMING_REREADS ? NAMING_REREAD_MS : false;
}
