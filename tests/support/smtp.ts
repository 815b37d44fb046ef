/**
 * SMTP test helpers: real report mail (RFC 5322 with a gzip aggregate report attached),
 * sending through nodemailer's SMTP transport, and a self-signed certificate made with
 * openssl at test time for STARTTLS.
 */
import { spawnSync } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nodemailer from "nodemailer";

export interface AggregateReportSpec {
  domain: string;
  reportId?: string;
  orgName?: string;
  /** [source ip, count, dkim pass?, spf pass?] */
  rows?: Array<[string, number, boolean, boolean]>;
  /** start of the report's day (epoch seconds); default 1700000000 (November 2023) */
  begin?: number;
}

export function aggregateReportXml(spec: AggregateReportSpec): string {
  const reportId = spec.reportId ?? `r-${crypto.randomUUID()}`;
  const orgName = spec.orgName ?? "google.com";
  const rows = spec.rows ?? [
    ["192.0.2.10", 12, true, true],
    ["198.51.100.7", 3, false, false],
  ];
  const begin = spec.begin ?? 1_700_000_000;
  const records = rows
    .map(
      ([ip, count, dkim, spf]) => `  <record>
    <row>
      <source_ip>${ip}</source_ip>
      <count>${count}</count>
      <policy_evaluated><disposition>none</disposition><dkim>${dkim ? "pass" : "fail"}</dkim><spf>${spf ? "pass" : "fail"}</spf></policy_evaluated>
    </row>
    <identifiers><header_from>${spec.domain}</header_from></identifiers>
    <auth_results>
      <dkim><domain>${spec.domain}</domain><selector>s1</selector><result>${dkim ? "pass" : "fail"}</result></dkim>
      <spf><domain>${spec.domain}</domain><result>${spf ? "pass" : "fail"}</result></spf>
    </auth_results>
  </record>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8" ?>
<feedback>
  <report_metadata>
    <org_name>${orgName}</org_name>
    <email>noreply-dmarc-support@${orgName}</email>
    <report_id>${reportId}</report_id>
    <date_range><begin>${begin}</begin><end>${begin + 86399}</end></date_range>
  </report_metadata>
  <policy_published>
    <domain>${spec.domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct>
  </policy_published>
${records}
</feedback>
`;
}

function base64Lines(bytes: Uint8Array): string {
  return (Buffer.from(bytes).toString("base64").match(/.{1,76}/g) ?? []).join("\r\n");
}

/** A whole e-mail message as a reporter sends it: text part + gzip XML attachment. */
export function aggregateReportMail(spec: AggregateReportSpec & { to?: string; from?: string }): string {
  const reportId = spec.reportId ?? `r-${crypto.randomUUID()}`;
  const orgName = spec.orgName ?? "google.com";
  const gz = Bun.gzipSync(Buffer.from(aggregateReportXml({ ...spec, reportId, orgName })));
  const begin = spec.begin ?? 1_700_000_000;
  const fileName = `${orgName}!${spec.domain}!${begin}!${begin + 86399}.xml.gz`;
  const boundary = `b-${crypto.randomUUID()}`;
  return [
    `From: ${spec.from ?? `noreply-dmarc-support@${orgName}`}`,
    `To: ${spec.to ?? `dmarc@${spec.domain}`}`,
    `Subject: Report domain: ${spec.domain} Submitter: ${orgName} Report-ID: ${reportId}`,
    `Date: ${new Date(1_700_090_000_000).toUTCString()}`,
    `Message-ID: <${reportId}@${orgName}>`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    `This is an aggregate report from ${orgName}.`,
    `--${boundary}`,
    `Content-Type: application/gzip; name="${fileName}"`,
    `Content-Disposition: attachment; filename="${fileName}"`,
    "Content-Transfer-Encoding: base64",
    "",
    base64Lines(gz),
    `--${boundary}--`,
    "",
  ].join("\r\n");
}

export interface SendResult {
  accepted: boolean;
  /** the server's final reply line, or the error's */
  response: string;
  responseCode?: number;
}

/**
 * Sends raw mail to 127.0.0.1:port with nodemailer; resolves with the outcome instead of throwing.
 * `localAddress` (e.g. 127.0.0.2: every 127/8 address is local on Linux) makes the client a different sender address.
 */
export async function sendMail(port: number, envelope: { from: string; to: string[] }, raw: string, options: { requireTLS?: boolean; ca?: string; servername?: string; localAddress?: string } = {}): Promise<SendResult & { secured: boolean }> {
  let secured = false;
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port,
    secure: false,
    requireTLS: options.requireTLS ?? false,
    ignoreTLS: !options.requireTLS,
    tls: options.ca ? { ca: options.ca, servername: options.servername ?? "localhost" } : undefined,
    connectionTimeout: 10_000,
    localAddress: options.localAddress,
    logger: false,
  } as any);
  transport.on("log" as any, () => {});
  try {
    const info: any = await transport.sendMail({ envelope, raw });
    secured = !!options.requireTLS;
    return { accepted: info.accepted.length > 0, response: String(info.response ?? ""), secured };
  } catch (error: any) {
    return { accepted: false, response: String(error.response ?? error.message), responseCode: error.responseCode, secured };
  } finally {
    transport.close();
  }
}

/** A throw-away self-signed certificate for `localhost` (openssl), as PEM texts. */
export function selfSignedCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "dw-cert-"));
  try {
    const res = spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stderr: "pipe" });
    if (res.exitCode !== 0) throw new Error(`openssl failed: ${res.stderr.toString()}`);
    return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
