import { CheckCircle2, Copy, FileWarning, Upload } from "lucide-react";
import { useRef, useState } from "react";
import { errorMessage } from "../../lib/api";
import { formatCount } from "../../lib/format";
import { useUploadReports, type IngestResult } from "./api";

const KIND_LABEL = { aggregate: "Aggregate report", failure: "Failure report", tls: "SMTP TLS report" } as const;

/** Drag-and-drop (or choose) report files; shows what happened to each one. */
export function ReportUploader() {
  const upload = useUploadReports();
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [results, setResults] = useState<IngestResult[]>([]);
  const [failure, setFailure] = useState<string | null>(null);

  const send = (files: File[]) => {
    if (files.length === 0) return;
    setFailure(null);
    upload.mutate(files, {
      onSuccess: (body) => setResults(body.results),
      onError: (error) => {
        setResults([]);
        setFailure(errorMessage(error));
      },
    });
  };

  return (
    <section className="card border border-base-300 bg-base-100 shadow-sm" aria-label="Upload reports">
      <div className="card-body gap-3 p-4 sm:p-6">
        <div
          className={`flex flex-col items-center gap-2 rounded-box border-2 border-dashed p-6 text-center transition-colors ${dragging ? "border-primary bg-primary/5" : "border-base-300"}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            send([...e.dataTransfer.files]);
          }}
          data-testid="report-dropzone"
        >
          <Upload className="h-8 w-8 opacity-50" aria-hidden />
          <p className="font-medium">Drop report files here</p>
          <p className="text-sm opacity-70">Aggregate XML, SMTP TLS JSON, .gz, .zip or whole e-mails (.eml) — several at once.</p>
          <input
            ref={input}
            id="report-files"
            type="file"
            multiple
            className="sr-only"
            aria-label="Report files"
            onChange={(e) => {
              send([...(e.target.files ?? [])]);
              e.target.value = "";
            }}
          />
          <button type="button" className="btn btn-primary btn-sm mt-1" onClick={() => input.current?.click()} disabled={upload.isPending}>
            {upload.isPending ? "Uploading..." : "Choose Files"}
          </button>
        </div>
        {failure && (
          <p className="text-sm text-error" role="alert">
            {failure}
          </p>
        )}
        {results.length > 0 && (
          <ul className="flex flex-col gap-2" aria-label="Upload results">
            {results.map((r, i) => (
              <UploadResult key={`${r.fileName}-${i}`} result={r} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function UploadResult({ result }: { result: IngestResult }) {
  const tone = result.status === "ingested" ? "text-success" : result.status === "duplicate" ? "text-info" : "text-error";
  const Icon = result.status === "ingested" ? CheckCircle2 : result.status === "duplicate" ? Copy : FileWarning;
  const label = result.status === "ingested" ? "Ingested" : result.status === "duplicate" ? "Already imported" : "Refused";
  return (
    <li className="flex items-start gap-3 rounded-box border border-base-300 p-3 text-sm">
      <Icon className={`mt-0.5 h-4 w-4 shrink-0 ${tone}`} aria-hidden />
      <div className="min-w-0 flex-1">
        <p className="flex flex-wrap items-center gap-x-2 font-medium">
          <span className="truncate">{result.fileName}</span>
          <span className={`badge badge-sm ${result.status === "ingested" ? "badge-success" : result.status === "duplicate" ? "badge-info" : "badge-error"}`}>{label}</span>
          {result.kind && <span className="text-xs opacity-60">{KIND_LABEL[result.kind]}</span>}
        </p>
        {result.error ? (
          <p className="mt-1 text-error">{result.error}</p>
        ) : (
          <p className="mt-1 opacity-70">
            {result.reports
              .map((r) => `${r.orgName} · ${r.domain} · ${formatCount(r.messageCount)} message${r.messageCount === 1 ? "" : "s"}`)
              .join("; ")}
          </p>
        )}
      </div>
    </li>
  );
}
