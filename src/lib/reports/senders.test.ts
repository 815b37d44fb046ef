import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { baseDomainOf, parseSenderMap, serviceFor, splitCsvLine } from "./senders";

const SHIPPED = readFileSync(new URL("../../../assets/senders/base_reverse_dns_map.csv", import.meta.url), "utf8");

describe("the sending-service catalog", () => {
  test("finds every row of the shipped file as reading it top to bottom would, and nothing else", () => {
    const expected = new Map<string, { name: string; type: string }>();
    for (const line of SHIPPED.split(/\r?\n/).slice(1)) {
      if (!line) continue;
      const cells = splitCsvLine(line);
      if (cells.length >= 2 && cells[0]) expected.set(cells[0].toLowerCase(), { name: cells[1] ?? "", type: cells[2] ?? "" });
    }
    const catalog = parseSenderMap(SHIPPED);
    expect(expected.size).toBeGreaterThan(30_000);
    expect(catalog.size).toBe(expected.size);
    const wrong = [...expected].filter(([domain, service]) => JSON.stringify(catalog.get(domain)) !== JSON.stringify(service));
    expect(wrong).toEqual([]);
    for (const missing of ["", "a", "google.co", "google.comm", "zzzzzzzzzz.example", "~"]) expect(catalog.get(missing)).toBeUndefined();
    expect(serviceFor(catalog, baseDomainOf("mail-sor-f41.google.com."))).toEqual({ name: "Google (Including Gmail and Google Workspace)", type: "Email Provider" });
    expect(serviceFor(catalog, null)).toBeNull();
  });

  test("rows out of order, upper-case, quoted or repeated are found too, the later of a repeated base domain standing", () => {
    const csv = [
      "base_reverse_dns,name,type",
      "alpha.example,Alpha,ISP",
      "charlie.example,Charlie,Web Host",
      "bravo.example,Bravo (out of order),ISP",
      "charlie.example,Charlie again,Email Provider",
      "Delta.Example,Delta,ISP",
      '"echo.example","Echo, Inc.",Marketing',
      "foxtrot.example,Foxtrot",
      "golf.example,,",
      '"india.example","India, quoted first",ISP',
      "india.example,India later,ISP",
      "juliet.example,Juliet,ISP",
      "",
    ].join("\r\n");
    const catalog = parseSenderMap(csv);
    expect(catalog.size).toBe(9);
    expect(catalog.get("alpha.example")).toEqual({ name: "Alpha", type: "ISP" });
    expect(catalog.get("bravo.example")).toEqual({ name: "Bravo (out of order)", type: "ISP" });
    expect(catalog.get("charlie.example")).toEqual({ name: "Charlie again", type: "Email Provider" });
    expect(catalog.get("delta.example")).toEqual({ name: "Delta", type: "ISP" });
    expect(catalog.get("echo.example")).toEqual({ name: "Echo, Inc.", type: "Marketing" });
    expect(catalog.get("foxtrot.example")).toEqual({ name: "Foxtrot", type: "" });
    expect(catalog.get("golf.example")).toEqual({ name: "", type: "" });
    expect(catalog.get("india.example")).toEqual({ name: "India later", type: "ISP" });
    expect(catalog.get("juliet.example")).toEqual({ name: "Juliet", type: "ISP" });
    expect(catalog.get("base_reverse_dns")).toBeUndefined();
    expect(catalog.get("hotel.example")).toBeUndefined();
  });

  test("a file of its header alone, or empty, names no service", () => {
    expect(parseSenderMap("base_reverse_dns,name,type\n").get("alpha.example")).toBeUndefined();
    expect(parseSenderMap("").size).toBe(0);
  });
});
