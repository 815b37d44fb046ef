import { describe, expect, test } from "bun:test";
import { deriveTasks, type DomainState } from "./tasks";
import { externalAuthorization, reportPath, reportPathAdvice, type ReportDestination } from "./report-path";

const off: ReportDestination = { receiverAddress: null, mailboxConnected: false, mailboxAddress: null, configuredRua: "" };

describe("reportPath", () => {
  test("receiver on: the organization's own address, with the external-destination record", () => {
    const path = reportPath("Acme.example", { ...off, receiverAddress: "a1b2c3@reports.dw.test", configuredRua: "dmarc@acme.example" });
    expect(path.mode).toBe("receiver");
    expect(path.routes).toEqual([
      { kind: "receiver", address: "a1b2c3@reports.dw.test", rua: "mailto:a1b2c3@reports.dw.test", external: { host: "reports.dw.test", name: "acme.example._report._dmarc.reports.dw.test", value: "v=DMARC1" } },
    ]);
  });

  test("receiver off, nothing connected: a choice between a mailbox and uploading, each with its rua", () => {
    const path = reportPath("acme.example", off);
    expect(path.mode).toBe("choice");
    expect(path.routes.map((r) => [r.kind, r.rua, r.external])).toEqual([
      ["mailbox", "mailto:dmarc@acme.example", null],
      ["upload", "mailto:dmarc@acme.example", null],
    ]);
    expect(reportPathAdvice(path)).toContain("does not receive report mail itself");
  });

  test("a connected mailbox: its address; one outside the domain needs the §7.1 record", () => {
    const path = reportPath("shop.acme.example", { ...off, mailboxConnected: true, mailboxAddress: "reports@mail-host.example" });
    expect(path.mode).toBe("mailbox");
    expect(path.routes[0]).toMatchObject({ kind: "mailbox", rua: "mailto:reports@mail-host.example", external: { name: "shop.acme.example._report._dmarc.mail-host.example" } });
    expect(reportPathAdvice(path)).toContain('shop.acme.example._report._dmarc.mail-host.example "v=DMARC1"');
  });

  test("an address at another name of the same organizational domain needs no record", () => {
    expect(externalAuthorization("shop.acme.example", "dmarc@acme.example")).toBeNull();
    expect(externalAuthorization("acme.co.uk", "dmarc@other.co.uk")).toMatchObject({ name: "acme.co.uk._report._dmarc.other.co.uk" });
  });
});

describe("tasks follow the report path", () => {
  const missing: DomainState = { id: "d1", name: "acme.example", dmarcPolicy: "missing", spfStatus: "valid", dkimStatus: "valid", dmarcRecord: null, createdAt: new Date("2025-05-01T00:00:00Z"), lastReportAt: null };
  const now = new Date("2025-06-01T00:00:00Z");

  test("receiver on: the record to publish carries the organization's report address, not dmarc@ the domain", () => {
    const [task] = deriveTasks({ now, domains: [missing], ruaAddress: "dmarc@acme.example", destination: { ...off, receiverAddress: "tok@reports.dw.test", configuredRua: "dmarc@acme.example" } });
    expect(task!.description).toContain('"v=DMARC1; p=none; rua=mailto:tok@reports.dw.test"');
    expect(task!.description).toContain("acme.example._report._dmarc.reports.dw.test");
  });

  test("receiver off: the task says how the reports reach dmarcwarden (mailbox or upload)", () => {
    const [task] = deriveTasks({ now, domains: [missing], destination: off });
    expect(task!.description).toContain("rua=mailto:dmarc@acme.example");
    expect(task!.description).toContain("connect it under Settings › Report mail (IMAP)");
    expect(task!.description).toContain("upload the reports on DMARC Reports");
  });
});
