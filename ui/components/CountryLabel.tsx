/**
 * A country shown the same way on every screen and in every browser: its ISO 3166-1 alpha-2
 * code in a small badge, then its English name. (Emoji flags render as empty boxes where the
 * system has no flag font, Debian's Chromium among them.)
 */

const ALPHA2 = /^[A-Z]{2}$/;
let names: Intl.DisplayNames | null | undefined;

/** The English name of an alpha-2 code ("Germany" for "DE"), or undefined when unknown. */
export function countryName(code: string | null | undefined): string | undefined {
  const upper = code?.toUpperCase();
  if (!upper || !ALPHA2.test(upper)) return undefined;
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
    } catch {
      names = null;
    }
  }
  try {
    return names?.of(upper) ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * `code`: the alpha-2 code (no badge when missing or malformed); `name`: the name to show,
 * else the browser's name for the code, else the code itself.
 */
export function CountryLabel({ code, name, className = "" }: { code: string | null | undefined; name?: string; className?: string }) {
  const upper = code?.toUpperCase();
  const valid = upper !== undefined && ALPHA2.test(upper);
  const label = name || countryName(upper) || (valid ? upper : "Unknown");
  return (
    <span className={`inline-flex min-w-0 items-center gap-1.5 ${className}`} data-country-label={valid ? upper : undefined}>
      {valid && (
        <span className="badge badge-ghost badge-xs shrink-0 font-mono font-semibold tracking-wide" aria-hidden>
          {upper}
        </span>
      )}
      <span className="truncate">{label}</span>
    </span>
  );
}
