/**
 * The demo's static sample data (SPEC §2 Demo page, §3 entities): a fictional law firm with
 * five domains, consistent with the landing page preview (2/5 protected, 1,247 reports).
 * Times are relative to `now` so the demo always looks current.
 */
import type { IpThreat } from "../../components/ThreatList";

export interface DemoDomain {
  id: string;
  name: string;
  dmarcPolicy: "reject" | "quarantine" | "none";
  spfStatus: string;
  dkimStatus: string;
  overallStatus: "protected" | "partial" | "vulnerable" | "warning";
  lastReportAt: Date | null;
}

export interface DemoTask {
  id: string;
  title: string;
  description: string;
  priority: "high" | "medium" | "low";
  createdAt: Date;
}

export interface DemoReport {
  id: string;
  orgName: string;
  totalMessages: number;
  passRate: number;
  processedAt: Date;
}

export interface DemoStats {
  totalDomains: number;
  dmarcProtected: number;
  protectionRate: number;
  domainGrowth: string;
  activeIssues: number;
  issueChange: string;
  reportsProcessed: number;
  reportGrowth: string;
}

export interface DemoMember {
  name: string;
  email: string;
  role: "Admin" | "User";
}

export interface DemoSettings {
  organizationName: string;
  contactEmail: string;
  emailNotifications: boolean;
  ruaAddress: string;
  rufAddress: string;
  autoProcessReports: boolean;
  dnsCaching: boolean;
  cacheTtl: string;
  threatMonitoring: boolean;
  complianceAlerts: boolean;
}

export interface DemoData {
  stats: DemoStats;
  domains: DemoDomain[];
  tasks: DemoTask[];
  threats: IpThreat[];
  reports: DemoReport[];
  settings: DemoSettings;
  plan: { name: string; priceLabel: string; limits: { domains: number; users: number; reportsPerMonth: number } };
  members: DemoMember[];
}

const HOUR = 3600_000;

export function demoData(now: Date = new Date()): DemoData {
  const ago = (hours: number) => new Date(now.getTime() - hours * HOUR);
  return {
    stats: {
      totalDomains: 5,
      dmarcProtected: 2,
      protectionRate: 40,
      domainGrowth: "+1",
      activeIssues: 4,
      issueChange: "-2",
      reportsProcessed: 1247,
      reportGrowth: "+12%",
    },
    domains: [
      { id: "d1", name: "summitlegal.com", dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", overallStatus: "protected", lastReportAt: ago(2) },
      { id: "d2", name: "summitlegal.net", dmarcPolicy: "reject", spfStatus: "valid", dkimStatus: "valid", overallStatus: "protected", lastReportAt: ago(5) },
      { id: "d3", name: "summit-clients.com", dmarcPolicy: "quarantine", spfStatus: "valid", dkimStatus: "weak key", overallStatus: "partial", lastReportAt: ago(9) },
      { id: "d4", name: "summit-portal.com", dmarcPolicy: "none", spfStatus: "too many lookups", dkimStatus: "valid", overallStatus: "warning", lastReportAt: ago(30) },
      { id: "d5", name: "summitbilling.com", dmarcPolicy: "none", spfStatus: "missing", dkimStatus: "missing", overallStatus: "vulnerable", lastReportAt: null },
    ],
    tasks: [
      {
        id: "t1",
        title: "Publish a DMARC policy for summitbilling.com",
        description: "No DMARC record was found, so anyone can send invoices in this domain's name. Start with p=none to collect reports.",
        priority: "high",
        createdAt: ago(3),
      },
      {
        id: "t2",
        title: "Add an SPF record to summitbilling.com",
        description: "Receivers cannot tell which servers may send for this domain. Publish an SPF record listing your email provider.",
        priority: "high",
        createdAt: ago(4),
      },
      {
        id: "t3",
        title: "Reduce SPF lookups on summit-portal.com",
        description: "The SPF record needs 12 DNS lookups; receivers stop at 10 and treat the result as an error. Remove unused includes.",
        priority: "medium",
        createdAt: ago(26),
      },
      {
        id: "t4",
        title: "Rotate the weak DKIM key on summit-clients.com",
        description: "The selector uses a 1024-bit key. Generate a 2048-bit key with your email provider and publish it.",
        priority: "low",
        createdAt: ago(75),
      },
    ],
    threats: [
      { ipAddress: "185.220.101.34", country: "Germany", city: "Frankfurt", attemptCount: 312, threatLevel: "high", lastSeenAt: ago(0.5) },
      { ipAddress: "45.155.205.99", country: "Netherlands", city: "Amsterdam", attemptCount: 87, threatLevel: "medium", lastSeenAt: ago(2) },
      { ipAddress: "103.251.167.10", country: "Singapore", city: "Singapore", attemptCount: 1024, threatLevel: "high", lastSeenAt: ago(1) },
      { ipAddress: "177.54.144.21", country: "Brazil", city: "São Paulo", attemptCount: 45, threatLevel: "low", lastSeenAt: ago(6) },
      { ipAddress: "91.92.109.43", country: "Bulgaria", city: "Sofia", attemptCount: 156, threatLevel: "medium", lastSeenAt: ago(3) },
      { ipAddress: "198.12.66.7", country: "United States", city: "Dallas", attemptCount: 23, threatLevel: "low", lastSeenAt: ago(12) },
      { ipAddress: "41.203.72.18", country: "Nigeria", city: "Lagos", attemptCount: 540, threatLevel: "high", lastSeenAt: ago(4) },
      { ipAddress: "5.188.62.140", country: "Estonia", city: "Tallinn", attemptCount: 71, threatLevel: "medium", lastSeenAt: ago(18) },
    ],
    reports: [
      { id: "r1", orgName: "google.com", totalMessages: 4820, passRate: 98.6, processedAt: ago(2) },
      { id: "r2", orgName: "Outlook.com", totalMessages: 2315, passRate: 96.1, processedAt: ago(5) },
      { id: "r3", orgName: "Yahoo", totalMessages: 862, passRate: 88.4, processedAt: ago(9) },
      { id: "r4", orgName: "Mimecast", totalMessages: 411, passRate: 81.2, processedAt: ago(27) },
      { id: "r5", orgName: "Proofpoint", totalMessages: 198, passRate: 64.5, processedAt: ago(50) },
    ],
    settings: {
      organizationName: "Summit Legal Group",
      contactEmail: "it@summitlegal.com",
      emailNotifications: true,
      ruaAddress: "dmarc@summitlegal.com",
      rufAddress: "dmarc-forensic@summitlegal.com",
      autoProcessReports: true,
      dnsCaching: true,
      cacheTtl: "",
      threatMonitoring: true,
      complianceAlerts: true,
    },
    plan: { name: "Business Plan", priceLabel: "$149/month", limits: { domains: 50, users: 10, reportsPerMonth: 10_000 } },
    members: [
      { name: "Sarah Mitchell", email: "sarah@summitlegal.com", role: "Admin" },
      { name: "David Chen", email: "david@summitlegal.com", role: "User" },
      { name: "Priya Raman", email: "priya@summitlegal.com", role: "User" },
    ],
  };
}
