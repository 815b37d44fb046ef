/** A week of an organisation with three domains, for the digest's tests. */
import type { DigestModel } from "./digest";

export function sampleDigest(overrides: Partial<DigestModel> = {}): DigestModel {
  return {
    organization: { name: "Acme Dental Clinic" },
    period: { start: new Date("2026-05-04T00:00:00Z"), end: new Date("2026-05-11T00:00:00Z") },
    domains: [
      { name: "acme-dental.example", status: "protected", messages: 12480, passed: 12230, previousMessages: 11020, previousPassed: 10580 },
      { name: "acme-mail.example", status: "vulnerable", messages: 3120, passed: 2340, previousMessages: 2990, previousPassed: 2900 },
      { name: "newsletters.example", status: "partial", messages: 0, passed: 0, previousMessages: 0, previousPassed: 0 },
    ],
    statusChanges: [{ domain: "acme-mail.example", at: new Date("2026-05-07T09:30:00Z"), before: "partial", after: "vulnerable" }],
    topFailingSources: [
      { sourceIp: "203.0.113.9", sourceName: "mail.spoofer.test", domain: "acme-mail.example", failedMessages: 731 },
      { sourceIp: "198.51.100.20", domain: "acme-dental.example", failedMessages: 250 },
    ],
    openTasks: [
      { title: "Publish a DMARC record with p=quarantine", priority: "high", domain: "acme-mail.example" },
      { title: "Rotate the 1024-bit DKIM key (selector s1)", priority: "medium", domain: "acme-dental.example" },
    ],
    link: "https://dmarc.example.net/app/dashboard",
    ...overrides,
  };
}
