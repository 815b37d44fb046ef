/** The embedded sending-service map (assets/senders, Apache-2.0, from parsedmarc). */
import senderCsv from "../../../assets/senders/base_reverse_dns_map.csv" with { type: "text" };
import { baseDomainOf, parseSenderMap, serviceFor, type SendingService } from "../../lib/reports/senders";

let map: Map<string, SendingService> | null = null;

export function sendingServiceOf(hostname: string | null): { baseDomain: string | null; service: SendingService | null } {
  if (!hostname) return { baseDomain: null, service: null };
  map ??= parseSenderMap(senderCsv);
  const baseDomain = baseDomainOf(hostname);
  return { baseDomain, service: serviceFor(map, baseDomain) };
}
