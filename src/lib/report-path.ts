/**
 * Where a domain's DMARC aggregate reports should go, for the deployment the organization is
 * on: this server's own report address when its SMTP receiver is on; the address of the
 * organization's connected IMAP mailbox; otherwise a choice between connecting a mailbox and
 * uploading reports by hand — each with the exact `rua` to publish and, when the address is
 * outside the monitored domain, the RFC 7489 §7.1 record that lets receivers send there.
 */
import { organizationalDomain } from "./dns/dmarc";

/** What the organization has set up to receive reports (src/features/mailin/destination.ts). */
export interface ReportDestination {
  /** `<token>@<smtp-domain>` when this server's SMTP receiver is on, else null */
  receiverAddress: string | null;
  /** an IMAP report mailbox is connected */
  mailboxConnected: boolean;
  /** the connected mailbox's own address, when its user name is one */
  mailboxAddress: string | null;
  /** Settings › DMARC aggregate reports (rua), without mailto:, "" when not set */
  configuredRua: string;
}

export type ReportRouteKind = "receiver" | "mailbox" | "upload";

/** RFC 7489 §7.1: the TXT record the address's domain publishes to accept reports about `domain`. */
export interface ExternalAuthorization {
  /** the domain that must publish it (the report address's domain) */
  host: string;
  name: string;
  value: "v=DMARC1";
}

export interface ReportRoute {
  kind: ReportRouteKind;
  address: string;
  /** the value of the rua= tag */
  rua: string;
  external: ExternalAuthorization | null;
}

export interface ReportPath {
  domain: string;
  /** receiver: this server receives the mail; mailbox: a connected mailbox is read; choice: one of routes must be set up */
  mode: "receiver" | "mailbox" | "choice";
  /** the first is the one the records dmarcwarden proposes carry */
  routes: ReportRoute[];
}

/** The name an address outside the domain must publish, or null when the address is within the domain's organization. */
export function externalAuthorization(domain: string, address: string): ExternalAuthorization | null {
  const host = address.slice(address.lastIndexOf("@") + 1).toLowerCase();
  const name = domain.toLowerCase().replace(/\.$/, "");
  if (!host || organizationalDomain(host) === organizationalDomain(name)) return null;
  return { host, name: `${name}._report._dmarc.${host}`, value: "v=DMARC1" };
}

/** A route to `address`; `external` is the address's authorization, when already known (one lookup per address, not per route). */
function route(kind: ReportRouteKind, domain: string, address: string, external = externalAuthorization(domain, address)): ReportRoute {
  return { kind, address, rua: `mailto:${address}`, external: external && { ...external } };
}

const looksLikeAddress = (value: string | null): value is string => !!value && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);

/** The report path of one domain. */
export function reportPath(domain: string, destination: ReportDestination): ReportPath {
  const name = domain.toLowerCase();
  const configured = destination.configuredRua.replace(/^mailto:/i, "").trim();
  if (destination.receiverAddress) return { domain: name, mode: "receiver", routes: [route("receiver", name, destination.receiverAddress)] };
  if (destination.mailboxConnected) {
    const address = looksLikeAddress(configured) ? configured : looksLikeAddress(destination.mailboxAddress) ? destination.mailboxAddress : `dmarc@${name}`;
    return { domain: name, mode: "mailbox", routes: [route("mailbox", name, address)] };
  }
  const address = looksLikeAddress(configured) ? configured : `dmarc@${name}`;
  const mailbox = route("mailbox", name, address);
  return { domain: name, mode: "choice", routes: [mailbox, route("upload", name, address, mailbox.external)] };
}

/** The address the records dmarcwarden proposes for `domain` carry. */
export function proposedRua(path: ReportPath): string {
  return path.routes[0]!.address;
}

/** One or two sentences that say how reports sent to the proposed address reach dmarcwarden (task descriptions). */
export function reportPathAdvice(path: ReportPath): string {
  const first = path.routes[0]!;
  const parts: string[] = [];
  if (path.mode === "receiver") parts.push(`${first.address} is this organization's own report address: reports sent there appear in dmarcwarden by themselves.`);
  else if (path.mode === "mailbox") parts.push(`dmarcwarden reads reports sent there from the report mailbox connected in Settings.`);
  else
    parts.push(
      `This server does not receive report mail itself: create the mailbox ${first.address} and connect it under Settings › Report mail (IMAP), or read it yourself and upload the reports on DMARC Reports.`,
    );
  if (first.external) parts.push(`Because ${first.external.host} is outside ${path.domain}, it must publish the TXT record ${first.external.name} "v=DMARC1" (RFC 7489 §7.1), or receivers will not send reports there.`);
  return parts.join(" ");
}
