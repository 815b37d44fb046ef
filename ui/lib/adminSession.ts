/** SPEC §3/§4: the admin console's session id lives in localStorage under adminSessionId. */
export const ADMIN_SESSION_KEY = "adminSessionId";

export function storedAdminSession(): string | null {
  try {
    return localStorage.getItem(ADMIN_SESSION_KEY);
  } catch {
    return null;
  }
}

export function storeAdminSession(sessionId: string): void {
  localStorage.setItem(ADMIN_SESSION_KEY, sessionId);
}

export function forgetAdminSession(): void {
  try {
    localStorage.removeItem(ADMIN_SESSION_KEY);
  } catch {}
}
