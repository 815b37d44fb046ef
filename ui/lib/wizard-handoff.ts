/**
 * What a setup wizard's visitor typed (name, domain, email) carried to /trial and /signup, so
 * they are not asked twice. Kept in this tab's sessionStorage only: never in a URL or a log.
 */
const KEY = "dw.wizard-details";

export interface WizardHandoff {
  name: string;
  domain: string;
  email: string;
}

export function saveWizardDetails(details: WizardHandoff): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ name: details.name.trim(), domain: details.domain.trim(), email: details.email.trim() }));
  } catch {
    // storage off (private mode): the forms simply start empty
  }
}

export function wizardDetails(): WizardHandoff | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<WizardHandoff>;
    const text = (v: unknown) => (typeof v === "string" ? v.slice(0, 254) : "");
    const out = { name: text(parsed.name), domain: text(parsed.domain), email: text(parsed.email) };
    return out.name || out.domain || out.email ? out : null;
  } catch {
    return null;
  }
}

/** Once the account exists the details have done their job. */
export function clearWizardDetails(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}
