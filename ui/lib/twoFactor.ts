import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { apiRequest } from "./api";
import { ME_KEY } from "./auth";

/** Two-factor sign-in calls: set-up, enable, disable, and the owner's "required for everyone" rule. */
export const TWO_FACTOR_POLICY_KEY = ["/api/settings/two-factor"] as const;

const post = async <T>(url: string, body?: unknown) => (await (await apiRequest("POST", url, body)).json()) as T;

export function useTwoFactorSetup() {
  return useMutation({ mutationFn: () => post<{ secret: string; otpauthUrl: string }>("/api/auth/2fa/setup") });
}

export function useTwoFactorEnable() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => post<{ recoveryCodes: string[] }>("/api/auth/2fa/enable", { code }),
    // not the whole app's cache: the recovery codes stay on screen until the user has saved them
    onSuccess: () => client.invalidateQueries({ queryKey: ME_KEY }),
  });
}

export function useTwoFactorDisable() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (code: string) => post<{ success: true }>("/api/auth/2fa/disable", { code }),
    onSuccess: () => client.invalidateQueries({ queryKey: ME_KEY }),
  });
}

export function useTwoFactorPolicy(enabled = true) {
  return useQuery<{ required: boolean }>({ queryKey: TWO_FACTOR_POLICY_KEY, enabled });
}

export function useSetTwoFactorPolicy() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (required: boolean) => (await (await apiRequest("PUT", "/api/settings/two-factor", { required })).json()) as { required: boolean },
    onSuccess: (answer) => {
      client.setQueryData(TWO_FACTOR_POLICY_KEY, answer);
      client.invalidateQueries({ queryKey: ME_KEY });
    },
  });
}
