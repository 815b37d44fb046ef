/** DKIM selector rules shared by the server and the lookup tool (no Node imports: the UI bundles this). */

/** Selectors the big mail providers and sending services use. */
export const COMMON_DKIM_SELECTORS = [
  "google", "selector1", "selector2", "k1", "k2", "k3", "s1", "s2", "default", "dkim", "mail", "smtp",
  "key1", "key2", "sig1", "mx", "everlytickey1", "everlytickey2", "mandrill", "mxvault", "zoho", "zmail",
  "protonmail", "protonmail2", "protonmail3", "fm1", "fm2", "fm3", "pm", "mailjet", "krs", "mg", "hs1", "hs2",
  "cm", "dkim1", "20230601", "20221208", "20210112", "20161025", "amazonses",
];

/** at most this many selectors per lookup request */
export const MAX_REQUEST_SELECTORS = 10;
/** one or more DNS labels (letters, digits, hyphen, underscore) */
export const SELECTOR_PATTERN = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;
