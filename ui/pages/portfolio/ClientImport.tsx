import { Upload } from "lucide-react";
import { useState } from "react";
import { Panel } from "../../components/Panel";
import { errorMessage } from "../../lib/api";
import { formatCount } from "../../lib/format";
import { toast } from "../../lib/toast";
import { useImportClients, type ImportResponse, type ImportRow } from "./api";

const EXAMPLE = "client name, domain\nAcme Dental, acmedental.com\nAcme Dental, acme-smiles.com\nBaker Law, bakerlaw.com";
/** Files larger than the server takes are refused here at once (the server checks too). */
const MAX_FILE_BYTES = 200_000;

function rowResult(row: ImportRow, dryRun: boolean): { text: string; tone: string } {
  if (row.status === "error") return { text: row.error ?? "Error", tone: "text-error" };
  if (row.status === "exists") return { text: "Already monitored", tone: "opacity-70" };
  const client = row.clientCreated ? (dryRun ? " (new client)" : " (client created)") : "";
  return { text: `${dryRun ? "Will be added" : "Added"}${client}`, tone: "text-success" };
}

function summaryText(result: ImportResponse): string {
  const { created, exists, errors, clientsCreated } = result.summary;
  const verb = result.dryRun ? "to add" : "added";
  const parts = [`${formatCount(created)} ${created === 1 ? "domain" : "domains"} ${verb}`, `${formatCount(clientsCreated)} new ${clientsCreated === 1 ? "client" : "clients"}`];
  if (exists) parts.push(`${formatCount(exists)} already monitored`);
  parts.push(`${formatCount(errors)} ${errors === 1 ? "row" : "rows"} with errors`);
  return parts.join(" · ");
}

/**
 * Bulk onboarding: paste or upload a CSV of `client name, domain` rows, preview what it would
 * do (a dry run: nothing changes), then import. Each row stands alone: a row with an error
 * changes nothing, the others go ahead. Each added domain's DNS check is queued.
 */
export function ClientImport() {
  const [csv, setCsv] = useState("");
  const [result, setResult] = useState<ImportResponse | null>(null);
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const run = useImportClients();

  const edit = (text: string) => {
    setCsv(text);
    setResult(null);
    setFormError(null);
  };
  const readFile = async (file: File | undefined) => {
    if (!file) return;
    if (file.size > MAX_FILE_BYTES) return setFormError(`${file.name} is larger than ${MAX_FILE_BYTES / 1000} kB. Split it into several imports.`);
    edit(await file.text());
  };
  const submit = (dryRun: boolean) => {
    if (!csv.trim()) return setFormError("Paste or upload a CSV with one client name and domain per line.");
    setFormError(null);
    run.mutate(
      { csv, dryRun },
      {
        onSuccess: (answer) => {
          setResult(answer);
          if (!answer.dryRun) toast({ title: "Import finished", description: summaryText(answer), variant: answer.summary.errors ? undefined : "success" });
        },
        onError: (e) => setFormError(errorMessage(e)),
      },
    );
  };

  const rows = result ? (errorsOnly ? result.rows.filter((r) => r.status === "error") : result.rows) : [];
  const previewed = result?.dryRun === true;

  return (
    <Panel title="Bulk onboarding">
      <p className="text-sm opacity-70">
        Create clients and add their domains from a CSV: one <code>client name, domain</code> pair per line. Clients are matched by name; new names become new client organizations. Preview first:
        nothing changes until you import. A row with an error changes nothing; the other rows are imported.
      </p>
      <label className="w-full">
        <span className="mb-1 block text-sm font-medium">CSV</span>
        <textarea
          className="textarea textarea-bordered h-36 w-full font-mono text-sm"
          placeholder={EXAMPLE}
          value={csv}
          onChange={(e) => edit(e.target.value)}
          spellCheck={false}
          aria-describedby={formError ? "import-error" : undefined}
          aria-invalid={formError ? true : undefined}
        />
      </label>
      <div className="flex flex-col gap-2 sm:flex-row sm:flex-wrap sm:items-center">
        <label className="btn btn-outline btn-sm">
          <Upload className="h-4 w-4" aria-hidden />
          Upload CSV file
          <input type="file" accept=".csv,text/csv,text/plain" className="sr-only" onChange={(e) => void readFile(e.target.files?.[0])} />
        </label>
        <button type="button" className="btn btn-primary btn-sm" disabled={run.isPending} onClick={() => submit(true)}>
          {run.isPending && run.variables?.dryRun ? "Checking..." : "Preview import"}
        </button>
        {previewed && (
          <button type="button" className="btn btn-success btn-sm" disabled={run.isPending || result.summary.created === 0} onClick={() => submit(false)}>
            {run.isPending && !run.variables?.dryRun ? "Importing..." : `Import ${formatCount(result.summary.created)} ${result.summary.created === 1 ? "domain" : "domains"}`}
          </button>
        )}
      </div>
      {formError && (
        <p id="import-error" className="text-sm text-error" role="alert">
          {formError}
        </p>
      )}
      {result && (
        <div className="flex flex-col gap-2" aria-label={result.dryRun ? "Import preview" : "Import result"} role="region">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <p className="text-sm font-medium" role="status">
              {result.dryRun ? "Preview: " : "Imported: "}
              {summaryText(result)}
            </p>
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" className="checkbox checkbox-sm" checked={errorsOnly} onChange={(e) => setErrorsOnly(e.target.checked)} />
              Only rows with errors
            </label>
          </div>
          <div className="max-h-96 overflow-auto rounded-box border border-base-300">
            <table className="table table-sm table-pin-rows">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Client</th>
                  <th scope="col">Domain</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => {
                  const outcome = rowResult(row, result.dryRun);
                  return (
                    <tr key={row.line} data-status={row.status}>
                      <td>{row.line}</td>
                      <td className="break-words">{row.clientName}</td>
                      <td className="break-all">{row.domain}</td>
                      <td className={outcome.tone}>{outcome.text}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </div>
      )}
    </Panel>
  );
}
