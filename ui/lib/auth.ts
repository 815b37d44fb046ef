import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { MeResponse, OrgSummary, TwoFactorChallenge } from "../../src/features/auth/contract";
import { apiRequest } from "./api";
import { getQueryFn } from "./queryClient";

export type { MeResponse, OrgSummary };
export const ME_KEY = ["/api/auth/me"] as const;

/** The signed-in user with their organisations; `null` when signed out (401). */
export function useMe() {
  return useQuery<MeResponse | null>({ queryKey: ME_KEY, queryFn: getQueryFn<MeResponse | null>({ on401: "returnNull" }) });
}

/** A real signed-in answer (a test's fetch stand-in may answer something else). */
export function isSignedIn(me: unknown): me is MeResponse {
  return Boolean(me && typeof me === "object" && "user" in me && (me as MeResponse).user?.email);
}

export const ROLE_LABELS: Record<OrgSummary["role"], string> = { owner: "Owner", admin: "Admin", member: "Member", viewer: "Viewer" };

/** `?next=` only ever leads to a path on this site ("/app/x"), never to "//evil.example" or "https://…". */
export function safeNext(next: string | null | undefined, fallback = "/app/dashboard"): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\") || /[\u0000-\u001f]/.test(next)) return fallback;
  return next;
}

/** After signing in, up or out, or switching organisation: every cached answer belongs to someone else now. */
function useReplaceSession() {
  const client = useQueryClient();
  return (me: MeResponse | null) => {
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] });
    client.setQueryData(ME_KEY, me);
  };
}

/** The password step: signs in, or answers { twoFactorRequired } when a code from the user's app must follow. */
export function useSignIn() {
  const replace = useReplaceSession();
  return useMutation({
    mutationFn: async (input: { email: string; password: string }) => (await (await apiRequest("POST", "/api/auth/login", input)).json()) as MeResponse | TwoFactorChallenge,
    onSuccess: (answer) => {
      if (isSignedIn(answer)) replace(answer);
    },
  });
}

/** The code step after the password: a 6-digit code from the app, or a recovery code. */
export function useSignInCode() {
  const replace = useReplaceSession();
  return useMutation({
    mutationFn: async (code: string) => (await (await apiRequest("POST", "/api/auth/login/2fa", { code })).json()) as MeResponse,
    onSuccess: replace,
  });
}

export function useSignUp() {
  const replace = useReplaceSession();
  return useMutation({
    // with mail on, the server answers "check your inbox" (202) instead of signing in
    mutationFn: async (input: { name: string; email: string; password: string; organization: string }) =>
      (await (await apiRequest("POST", "/api/auth/signup", input)).json()) as MeResponse | { verificationSent: true; message: string },
    onSuccess: (answer) => {
      if (isSignedIn(answer)) replace(answer);
    },
  });
}

export function useSignOut() {
  const replace = useReplaceSession();
  return useMutation({
    mutationFn: async () => {
      await apiRequest("POST", "/api/auth/logout");
    },
    onSuccess: () => replace(null),
  });
}

export function useSwitchOrg() {
  const replace = useReplaceSession();
  return useMutation({
    mutationFn: async (orgId: string) => (await (await apiRequest("POST", `/api/orgs/${encodeURIComponent(orgId)}/switch`)).json()) as MeResponse,
    onSuccess: replace,
  });
}

export function useCreateClient() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (name: string) => (await (await apiRequest("POST", "/api/orgs/clients", { name })).json()) as OrgSummary,
    onSuccess: () => client.invalidateQueries({ queryKey: ME_KEY }),
  });
}

/** Organisations grouped for the switcher: each top-level one followed by its clients. */
export function groupOrganizations(orgs: OrgSummary[]): { org: OrgSummary; clients: OrgSummary[] }[] {
  const ids = new Set(orgs.map((o) => o.id));
  const tops = orgs.filter((o) => !o.parentId || !ids.has(o.parentId));
  return tops.map((org) => ({ org, clients: orgs.filter((o) => o.parentId === org.id) }));
}
