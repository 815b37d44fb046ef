/**
 * Writes aggregate report XML (RFC 7489 App. C, or DMARCbis with `dmarcbis: true`) from a
 * plain description. Used by seed-demo, the ingestion benchmark and test fixtures, so they
 * all go through the real parser.
 */

export interface GeneratedRecord {
  sourceIp: string;
  count: number;
  disposition?: string;
  dkim?: string;
  spf?: string;
  headerFrom?: string;
  envelopeFrom?: string;
  dkimAuth?: { domain: string; selector?: string; result: string; humanResult?: string }[];
  spfAuth?: { domain: string; scope?: string; result: string }[];
  reasons?: { type: string; comment?: string }[];
}

export interface GeneratedAggregate {
  orgName: string;
  email?: string;
  reportId: string;
  begin: Date;
  end: Date;
  domain: string;
  p?: string;
  sp?: string;
  adkim?: string;
  aspf?: string;
  pct?: number;
  dmarcbis?: boolean;
  records: GeneratedRecord[];
}

const esc = (v: string) => v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const secs = (d: Date) => Math.floor(d.getTime() / 1000);

export function aggregateXml(r: GeneratedAggregate): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  out.push(r.dmarcbis ? '<feedback xmlns="urn:ietf:params:xml:ns:dmarc-2.0">\n  <version>1.0</version>' : "<feedback>");
  out.push(
    `  <report_metadata>\n    <org_name>${esc(r.orgName)}</org_name>\n    <email>${esc(r.email ?? `noreply-dmarc@${r.orgName}`)}</email>\n    <report_id>${esc(r.reportId)}</report_id>\n    <date_range>\n      <begin>${secs(r.begin)}</begin>\n      <end>${secs(r.end)}</end>\n    </date_range>${r.dmarcbis ? "\n    <generator>dmarcwarden-generator 1.0</generator>" : ""}\n  </report_metadata>`,
  );
  out.push(
    `  <policy_published>\n    <domain>${esc(r.domain)}</domain>\n    <adkim>${r.adkim ?? "r"}</adkim>\n    <aspf>${r.aspf ?? "r"}</aspf>\n    <p>${r.p ?? "none"}</p>\n    <sp>${r.sp ?? r.p ?? "none"}</sp>${r.dmarcbis ? "\n    <np>reject</np>\n    <testing>n</testing>\n    <discovery_method>treewalk</discovery_method>" : `\n    <pct>${r.pct ?? 100}</pct>`}\n  </policy_published>`,
  );
  for (const rec of r.records) {
    const reasons = (rec.reasons ?? []).map((x) => `\n        <reason>\n          <type>${esc(x.type)}</type>${x.comment ? `\n          <comment>${esc(x.comment)}</comment>` : ""}\n        </reason>`).join("");
    const dkim = (rec.dkimAuth ?? []).map((d) => `\n      <dkim>\n        <domain>${esc(d.domain)}</domain>${d.selector ? `\n        <selector>${esc(d.selector)}</selector>` : ""}\n        <result>${d.result}</result>${d.humanResult ? `\n        <human_result>${esc(d.humanResult)}</human_result>` : ""}\n      </dkim>`).join("");
    const spf = (rec.spfAuth ?? []).map((s) => `\n      <spf>\n        <domain>${esc(s.domain)}</domain>${s.scope ? `\n        <scope>${s.scope}</scope>` : ""}\n        <result>${s.result}</result>\n      </spf>`).join("");
    out.push(
      `  <record>\n    <row>\n      <source_ip>${rec.sourceIp}</source_ip>\n      <count>${rec.count}</count>\n      <policy_evaluated>\n        <disposition>${rec.disposition ?? "none"}</disposition>\n        <dkim>${rec.dkim ?? "pass"}</dkim>\n        <spf>${rec.spf ?? "pass"}</spf>${reasons}\n      </policy_evaluated>\n    </row>\n    <identifiers>${rec.envelopeFrom ? `\n      <envelope_from>${esc(rec.envelopeFrom)}</envelope_from>` : ""}\n      <header_from>${esc(rec.headerFrom ?? r.domain)}</header_from>\n    </identifiers>\n    <auth_results>${dkim}${spf}\n    </auth_results>\n  </record>`,
    );
  }
  out.push("</feedback>\n");
  return out.join("\n");
}
