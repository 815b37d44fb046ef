import type { Config } from "../../config";
import { SESSION_COOKIE, SESSION_DAYS } from "./sessions";

/** The session cookie: httpOnly, SameSite=Lax, Path=/, Secure when the public address is HTTPS. */
export function sessionCookie(config: Pick<Config, "publicUrl">, token: string): string {
  const secure = config.publicUrl.startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Lax; Path=/; Max-Age=${SESSION_DAYS * 86400}${secure}`;
}

export function clearedSessionCookie(config: Pick<Config, "publicUrl">): string {
  const secure = config.publicUrl.startsWith("https:") ? "; Secure" : "";
  return `${SESSION_COOKIE}=; HttpOnly; SameSite=Lax; Path=/; Max-Age=0${secure}`;
}
