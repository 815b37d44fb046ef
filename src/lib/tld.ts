/**
 * tldts' getDomain (the registrable domain of a host name, by the Public Suffix List), loaded on
 * first use: its suffix tables take a moment to set up, which a server start need not pay.
 */
import type { getDomain as GetDomain } from "tldts";

let impl: typeof GetDomain | null = null;

export const getDomain: typeof GetDomain = (...args) => (impl ??= (require("tldts") as typeof import("tldts")).getDomain)(...args);
