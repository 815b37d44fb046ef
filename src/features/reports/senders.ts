/** The embedded sending-service map (assets/senders, Apache-2.0, from parsedmarc). */
import { readFileSync } from "node:fs";
// embedded as a file and read on first use: 1.6 MB of text is not worth holding from start-up
import senderCsvPath from "../../../assets/senders/base_reverse_dns_map.csv" with { type: "file" };
import { baseDomainOf, parseSenderMap, serviceFor, type SenderCatalog, type SendingService } from "../../lib/reports/senders";

let map: SenderCatalog | null = null;

export function sendingServiceOf(hostname: string | null): { baseDomain: string | null; service: SendingService | null } {
  if (!hostname) return { baseDomain: null, service: null };
  map ??= parseSenderMap(readFileSync(senderCsvPath, "utf8"));
  const baseDomain = baseDomainOf(hostname);
  return { baseDomain, service: serviceFor(map, baseDomain) };
}
