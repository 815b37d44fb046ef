import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { RotateCcw, Save, SlidersHorizontal } from "lucide-react";
import { useEffect, useId } from "react";
import { useForm, type Path, type UseFormRegister } from "react-hook-form";
import { DEFAULT_PREFERENCES, DEFAULT_RETENTION, MAX_CACHE_TTL_SECONDS, MIN_CACHE_TTL_SECONDS, RETENTION_LIMITS, settingsSchema, WEEKDAYS, type Settings, type SettingsInput, type SettingsView } from "../../../src/features/settings/contract";
import { ApiError, apiRequest, errorMessage } from "../../lib/api";
import { toast } from "../../lib/toast";

export const SETTINGS_KEY = ["/api/settings"] as const;

function formValues(view: SettingsView): SettingsInput {
  const { canEdit: _c, updatedAt: _u, hasClients: _h, ...values } = view;
  return values;
}

function Toggle({ name, label, hint, register }: { name: Path<SettingsInput>; label: string; hint: string; register: UseFormRegister<SettingsInput> }) {
  const id = useId();
  return (
    <div className="flex items-start justify-between gap-4 py-3">
      <label htmlFor={id} className="min-w-0 cursor-pointer">
        <span className="block text-sm font-medium">{label}</span>
        <span className="block text-xs opacity-60">{hint}</span>
      </label>
      <input id={id} type="checkbox" className="toggle toggle-primary mt-0.5 shrink-0" {...register(name)} />
    </div>
  );
}

function Field({ label, hint, error, children, id }: { label: string; hint?: string; error?: string; children: React.ReactNode; id: string }) {
  return (
    <div className="grid gap-1">
      <label htmlFor={id} className="text-sm font-medium">
        {label}
      </label>
      {children}
      {error ? (
        <p className="text-xs text-error" id={`${id}-error`}>
          {error}
        </p>
      ) : (
        hint && <p className="text-xs opacity-60">{hint}</p>
      )}
    </div>
  );
}

/** Days a kind of report is kept: a number field with its limits as the hint. */
function RetentionField(props: {
  id: string;
  name: "retentionAggregateDays" | "retentionFailureDays";
  label: string;
  note?: string;
  limits: { min: number; max: number; default: number };
  error?: string;
  register: UseFormRegister<SettingsInput>;
}) {
  const { id, name, label, note = "", limits, error, register } = props;
  return (
    <Field id={id} label={label} hint={`${note}${limits.min} to ${limits.max} days; default ${limits.default}.`} error={error}>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={limits.min}
        max={limits.max}
        className={`input input-bordered w-full ${error ? "input-error" : ""}`}
        aria-invalid={!!error}
        {...register(name, { valueAsNumber: true })}
      />
    </Field>
  );
}

/** SPEC §2 Settings page fields, saved per organisation (admins and owners; others read). */
export function SettingsForm() {
  const uid = useId();
  const client = useQueryClient();
  const query = useQuery<SettingsView>({ queryKey: SETTINGS_KEY });
  const form = useForm<SettingsInput, unknown, Settings>({ resolver: zodResolver(settingsSchema), defaultValues: { ...DEFAULT_PREFERENCES, organizationName: "", contactEmail: "" } });
  const { register, handleSubmit, formState, reset, setValue, setError, watch } = form;

  useEffect(() => {
    if (query.data) reset(formValues(query.data));
  }, [query.data, reset]);

  const save = useMutation({
    mutationFn: async (values: Settings) => (await (await apiRequest("PUT", "/api/settings", values)).json()) as SettingsView,
    onSuccess: (view) => {
      client.setQueryData(SETTINGS_KEY, view);
      // the change is in the audit log now
      void client.invalidateQueries({ queryKey: ["/api/audit"] });
      toast({ title: "Settings Saved", description: "Your organization settings have been updated.", variant: "success" });
    },
    onError: (error) => {
      const fields = error instanceof ApiError ? error.fields : undefined;
      for (const [name, message] of Object.entries(fields ?? {})) if (name in DEFAULT_PREFERENCES || name in DEFAULT_RETENTION || name === "organizationName" || name === "contactEmail") setError(name as Path<SettingsInput>, { message });
      toast({ title: "Failed to Save Settings", description: errorMessage(error), variant: "destructive" });
    },
  });

  const resetToDefaults = () => {
    for (const [name, value] of Object.entries(DEFAULT_PREFERENCES)) setValue(name as Path<SettingsInput>, value as never, { shouldDirty: true, shouldValidate: true });
    toast({ title: "Defaults Restored", description: "Save Settings to keep the default preferences." });
  };

  const canEdit = query.data?.canEdit ?? false;
  const caching = watch("dnsCaching");
  const digestOn = watch("digestEnabled");
  const errors = formState.errors;
  const ids = { name: `${uid}-name`, email: `${uid}-email`, rua: `${uid}-rua`, ruf: `${uid}-ruf`, ttl: `${uid}-ttl`, digestDay: `${uid}-digest-day`, digestHour: `${uid}-digest-hour`, keepAggregate: `${uid}-keep-aggregate`, keepFailure: `${uid}-keep-failure` };

  return (
    <section className="card border border-base-300 bg-base-100" aria-labelledby={`${uid}-heading`}>
      <div className="card-body gap-5">
        <header>
          <h2 id={`${uid}-heading`} className="card-title">
            <SlidersHorizontal className="h-5 w-5 text-primary" aria-hidden />
            Organization settings
          </h2>
          <p className="text-sm opacity-70">Contact details, report addresses, monitoring and alert preferences for this organization.</p>
        </header>
        {query.isPending ? (
          <div className="grid gap-3" role="status" aria-label="Loading settings">
            <div className="skeleton h-10" />
            <div className="skeleton h-10" />
            <div className="skeleton h-24" />
          </div>
        ) : query.isError ? (
          <div role="alert" className="alert alert-error">
            <span>Settings could not be loaded: {errorMessage(query.error)}</span>
            <button type="button" className="btn btn-sm" onClick={() => query.refetch()}>
              Try Again
            </button>
          </div>
        ) : (
          <form onSubmit={handleSubmit((values) => save.mutate(values))} noValidate aria-label="Organization settings">
            {!canEdit && (
              <div role="note" className="alert alert-info mb-4 text-sm">
                Only admins and owners can change these settings.
              </div>
            )}
            <fieldset disabled={!canEdit || save.isPending} className="grid gap-6">
              <div className="grid gap-4 sm:grid-cols-2">
                <Field id={ids.name} label="Organization name" error={errors.organizationName?.message}>
                  <input id={ids.name} className={`input input-bordered w-full ${errors.organizationName ? "input-error" : ""}`} autoComplete="organization" aria-invalid={!!errors.organizationName} {...register("organizationName")} />
                </Field>
                <Field id={ids.email} label="Contact email" hint="Where alerts and notices go." error={errors.contactEmail?.message}>
                  <input id={ids.email} type="email" className={`input input-bordered w-full ${errors.contactEmail ? "input-error" : ""}`} placeholder="security@example.com" autoComplete="email" aria-invalid={!!errors.contactEmail} {...register("contactEmail")} />
                </Field>
              </div>

              <div className="grid gap-4 sm:grid-cols-2">
                <Field id={ids.rua} label="DMARC aggregate reports (rua)" hint="Suggested in the DMARC records dmarcwarden proposes when this server does not receive report mail itself (see Report mail below); with its SMTP receiver on, your own report address is proposed instead." error={errors.dmarcRua?.message}>
                  <input id={ids.rua} className={`input input-bordered w-full ${errors.dmarcRua ? "input-error" : ""}`} placeholder="dmarc@example.com" autoCapitalize="off" aria-invalid={!!errors.dmarcRua} {...register("dmarcRua")} />
                </Field>
                <Field id={ids.ruf} label="DMARC failure reports (ruf)" hint="Optional; few receivers send failure reports." error={errors.dmarcRuf?.message}>
                  <input id={ids.ruf} className={`input input-bordered w-full ${errors.dmarcRuf ? "input-error" : ""}`} placeholder="dmarc-forensics@example.com" autoCapitalize="off" aria-invalid={!!errors.dmarcRuf} {...register("dmarcRuf")} />
                </Field>
              </div>

              <div className="grid gap-x-8 sm:grid-cols-2">
                <div className="divide-y divide-base-300">
                  <Toggle name="emailNotifications" label="Email notifications" hint="Send alerts to the contact email." register={register} />
                  <Toggle name="autoProcessReports" label="Auto-process reports" hint="Ingest reports as soon as they arrive." register={register} />
                  <Toggle name="realtimeThreatMonitoring" label="Real-time threat monitoring" hint="Watch failing sources as reports come in." register={register} />
                </div>
                <div className="divide-y divide-base-300">
                  <Toggle name="complianceAlerts" label="Compliance alerts" hint="Warn when a domain's protection gets weaker." register={register} />
                  <Toggle name="dnsCaching" label="DNS caching" hint="Reuse DNS answers between checks." register={register} />
                  <div className="py-3">
                    <Field id={ids.ttl} label="Cache TTL (seconds)" hint={`${MIN_CACHE_TTL_SECONDS} to ${MAX_CACHE_TTL_SECONDS} seconds.`} error={errors.cacheTtlSeconds?.message}>
                      <input
                        id={ids.ttl}
                        type="number"
                        inputMode="numeric"
                        min={MIN_CACHE_TTL_SECONDS}
                        max={MAX_CACHE_TTL_SECONDS}
                        placeholder="3600"
                        className={`input input-bordered w-full ${errors.cacheTtlSeconds ? "input-error" : ""} ${caching ? "" : "opacity-50"}`}
                        readOnly={!caching}
                        aria-disabled={!caching}
                        aria-invalid={!!errors.cacheTtlSeconds}
                        {...register("cacheTtlSeconds", { valueAsNumber: true })}
                      />
                    </Field>
                  </div>
                </div>
              </div>

              <div className="grid gap-2 border-t border-base-300 pt-4">
                <h3 className="text-sm font-semibold">Weekly digest</h3>
                <Toggle name="digestEnabled" label="Weekly digest email" hint="Owners and admins with a confirmed email get a summary of the week, with a PDF copy." register={register} />
                <p id={`${uid}-digest-hint`} className="text-xs opacity-60">
                  Sent once a week on the day and hour below, in UTC: domains and status changes, messages and pass rate against the week before, top failing sources, open tasks.
                </p>
                <div className={`grid gap-4 sm:grid-cols-2 ${digestOn ? "" : "opacity-50"}`}>
                  <Field id={ids.digestDay} label="Digest day" error={errors.digestDay?.message}>
                    <select id={ids.digestDay} className="select select-bordered w-full" {...register("digestDay", { valueAsNumber: true })}>
                      {WEEKDAYS.map((name, day) => (
                        <option key={name} value={day}>
                          {name}
                        </option>
                      ))}
                    </select>
                  </Field>
                  <Field id={ids.digestHour} label="Digest hour (UTC)" error={errors.digestHour?.message}>
                    <select id={ids.digestHour} className="select select-bordered w-full" {...register("digestHour", { valueAsNumber: true })}>
                      {Array.from({ length: 24 }, (_, hour) => (
                        <option key={hour} value={hour}>
                          {`${String(hour).padStart(2, "0")}:00 UTC`}
                        </option>
                      ))}
                    </select>
                  </Field>
                </div>
                {query.data?.hasClients && (
                  <Toggle name="digestIncludeClients" label="Include client organizations" hint="One digest that also covers every client organization you manage, with a row per client." register={register} />
                )}
              </div>

              <div className="grid gap-2 border-t border-base-300 pt-4">
                <h3 className="text-sm font-semibold">Data retention</h3>
                <p className="text-xs opacity-60">
                  Older reports are deleted automatically, a little at a time, once an hour. The daily totals behind the charts and trends are kept, so long-term trends survive. The audit log is kept
                  separately, for at least a year.
                </p>
                <div className="grid gap-4 sm:grid-cols-2">
                  <RetentionField
                    id={ids.keepAggregate}
                    name="retentionAggregateDays"
                    label="Keep aggregate reports (days)"
                    limits={RETENTION_LIMITS.aggregate}
                    error={errors.retentionAggregateDays?.message}
                    register={register}
                  />
                  <RetentionField
                    id={ids.keepFailure}
                    name="retentionFailureDays"
                    label="Keep failure reports (days)"
                    note="They hold personal data (addresses, subjects). "
                    limits={RETENTION_LIMITS.failure}
                    error={errors.retentionFailureDays?.message}
                    register={register}
                  />
                </div>
              </div>

              <div className="flex flex-col-reverse gap-2 border-t border-base-300 pt-4 sm:flex-row sm:items-center sm:justify-end">
                {query.data?.updatedAt && <p className="mr-auto text-xs opacity-60">Last saved {new Date(query.data.updatedAt).toLocaleString()}</p>}
                <button type="button" className="btn btn-ghost" onClick={resetToDefaults}>
                  <RotateCcw className="h-4 w-4" aria-hidden /> Reset to Defaults
                </button>
                <button type="submit" className="btn btn-primary">
                  {save.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden /> : <Save className="h-4 w-4" aria-hidden />}
                  Save Settings
                </button>
              </div>
            </fieldset>
          </form>
        )}
      </div>
    </section>
  );
}
