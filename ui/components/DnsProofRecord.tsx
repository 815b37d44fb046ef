import type { DnsProofRecord } from "../../src/features/dns/contract";
import { CopyButton } from "./CopyButton";

export type { DnsProofRecord };

/** The TXT record that proves an organization controls a name: its name and value, each copyable. */
export function DnsProofRecordView({ record, testId }: { record: DnsProofRecord; testId?: string }) {
  const line = (label: string, value: string, what: string, id: string) => (
    <div className="flex min-w-0 items-center gap-2">
      <span className="w-12 shrink-0 text-xs opacity-70">{label}</span>
      <code className="min-w-0 flex-1 rounded bg-base-100 px-2 py-1 font-mono text-xs wrap-anywhere" data-testid={testId ? `${testId}-${id}` : undefined}>
        {value}
      </code>
      <CopyButton value={value} what={what} />
    </div>
  );
  return (
    <div className="flex min-w-0 flex-col gap-1" data-testid={testId}>
      {line("Name", record.name, "TXT record name", "name")}
      {line("Type", record.type, "Record type", "type")}
      {line("Value", record.value, "TXT record value", "value")}
    </div>
  );
}
