/**
 * Transport security of a domain's mail servers: what the STARTTLS probe of each MX host found
 * (src/features/dns/probes.ts), turned into findings. A host that could not be checked is
 * "could not check", never a failure of the domain.
 */
import { finding, type Finding } from "./types";

/** What a TLS server presented, as the probes read it. */
export interface CertificateInfo {
  /** DNS names the certificate is for (subjectAltName, else the common name) */
  names: string[];
  issuer: string | null;
  /** ISO time the certificate expires, when readable */
  validTo: string | null;
  /** the chain ends at a trusted authority (system's or --extra-ca-file) */
  chainTrusted: boolean;
  chainError: string | null;
  /** the certificate is valid for the host name that was asked for */
  nameMatches: boolean;
}

/** A certificate that expires in fewer days than this gets a warning. */
export const CERTIFICATE_WARNING_DAYS = 14;

export interface MxHostCheck {
  host: string;
  /** A/AAAA answered: "ok", "none" (the name has no address) or "failed" (the lookup failed) */
  resolvable: "ok" | "none" | "failed";
  addresses: string[];
  /** the STARTTLS probe; absent when probes are off */
  tls?: { outcome: "starttls" | "no_starttls" | "failed" | "unchecked"; reason?: string; certificate?: CertificateInfo };
}

/** Findings about a certificate the server `host` presented, under the code prefix `prefix`. */
export function certificateFindings(prefix: string, host: string, certificate: CertificateInfo, now: Date): Finding[] {
  const out: Finding[] = [];
  const expires = certificate.validTo ? Date.parse(certificate.validTo) : NaN;
  const day = certificate.validTo?.slice(0, 10);
  if (Number.isFinite(expires) && expires <= now.getTime()) {
    out.push(finding("error", `${prefix}.cert_expired`, `The TLS certificate of ${host} expired on ${day}.`, `Renew the certificate of ${host} (or turn on automatic renewal at your provider).`));
  } else if (Number.isFinite(expires) && expires - now.getTime() < CERTIFICATE_WARNING_DAYS * 86_400_000) {
    out.push(finding("warning", `${prefix}.cert_expiring`, `The TLS certificate of ${host} expires on ${day}, in less than ${CERTIFICATE_WARNING_DAYS} days.`, `Renew the certificate of ${host} before ${day}.`));
  }
  if (!certificate.nameMatches) {
    out.push(finding("warning", `${prefix}.cert_name_mismatch`, `The TLS certificate of ${host} is for ${certificate.names.join(", ") || "another name"}, not for ${host}.`, `Install a certificate that names ${host} (a subjectAltName entry), or point the record at a name the certificate covers.`));
  }
  if (!certificate.chainTrusted) {
    out.push(finding("warning", `${prefix}.cert_untrusted`, `The TLS certificate of ${host} is not signed by a trusted authority (${certificate.chainError ?? "unknown reason"}).`, `Use a certificate from a public certificate authority (for example Let's Encrypt) and serve the full chain.`));
  }
  return out;
}

/** Findings for the MX hosts: resolvable, STARTTLS offered, certificate names and expiry. */
export function mxHostFindings(hosts: MxHostCheck[], now: Date): Finding[] {
  const out: Finding[] = [];
  for (const h of hosts) {
    if (h.resolvable === "none") {
      out.push(finding("error", "mx.host_unresolvable", `The mail server ${h.host} has no address (no A or AAAA record), so mail to this domain cannot be delivered to it.`, `Publish an A (or AAAA) record for ${h.host}, or remove it from the MX records.`));
      continue;
    }
    if (h.resolvable === "failed" || !h.tls) continue;
    switch (h.tls.outcome) {
      case "unchecked":
        out.push(finding("info", "mx.host_not_checked", `STARTTLS on ${h.host} could not be checked: ${h.tls.reason ?? "no answer"}.`));
        break;
      case "no_starttls":
        out.push(finding("warning", "mx.no_starttls", `The mail server ${h.host} does not offer STARTTLS: mail to it travels unencrypted.`, `Turn on STARTTLS (TLS for incoming SMTP) on ${h.host}, with a certificate for that name.`));
        break;
      case "failed":
        out.push(finding("warning", "mx.starttls_failed", `The mail server ${h.host} offers STARTTLS but the encrypted connection could not be set up: ${h.tls.reason ?? "unknown reason"}.`, `Check the TLS configuration and certificate of ${h.host}.`));
        break;
      case "starttls": {
        const cert = h.tls.certificate;
        const problems = cert ? certificateFindings("mx", h.host, cert, now) : [];
        out.push(...problems);
        if (!problems.length) out.push(finding("info", "mx.starttls", `${h.host} offers STARTTLS with a valid certificate${cert?.validTo ? ` (until ${cert.validTo.slice(0, 10)})` : ""}.`));
      }
    }
  }
  return out;
}
