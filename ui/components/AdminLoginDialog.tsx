import { zodResolver } from "@hookform/resolvers/zod";
import { Lock } from "lucide-react";
import { useForm } from "react-hook-form";
import { Link, useNavigate } from "react-router";
import { adminLoginSchema, type AdminLoginInput, type AdminLoginResponse } from "../../src/features/admin/contract";
import { storeAdminSession } from "../lib/adminSession";
import { ApiError, apiRequest } from "../lib/api";
import { toast } from "../lib/toast";
import { Modal, ModalHeader } from "./Modal";

const EMPTY: AdminLoginInput = { username: "", password: "" };

/** The message of a refused login's body, when it has one. */
function refusalMessage(bodyText: string): string | undefined {
  try {
    const message = (JSON.parse(bodyText) as Partial<AdminLoginResponse> | null)?.message;
    return typeof message === "string" ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Master Administrator login of SPEC §2/§4/§8, opened from the landing page's Sign In.
 * Submitting shows Logging in...; on success the session id is kept under adminSessionId and
 * the console opens. The dialog closes and its fields clear in every outcome.
 */
export function AdminLoginDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const navigate = useNavigate();
  const form = useForm<AdminLoginInput>({ resolver: zodResolver(adminLoginSchema), defaultValues: EMPTY });
  const { register, handleSubmit, reset, formState } = form;

  const finish = () => {
    reset(EMPTY);
    onOpenChange(false);
  };

  const submit = handleSubmit(async (values) => {
    try {
      const res = await apiRequest("POST", "/api/admin/login", values);
      const data = (await res.json()) as AdminLoginResponse;
      if (data.success && data.sessionId) {
        storeAdminSession(data.sessionId);
        toast({ title: "Admin Login Successful", description: "Welcome to the Master Admin console", variant: "success" });
        finish();
        navigate("/admin/dashboard");
      } else {
        toast({ title: "Login Failed", description: data.message || "Invalid credentials", variant: "destructive" });
        finish();
      }
    } catch (error) {
      // wrong credentials answer 401 with SPEC's success:false body: the same Login Failed toast
      if (error instanceof ApiError && error.status === 401) {
        toast({ title: "Login Failed", description: refusalMessage(error.bodyText) || "Invalid credentials", variant: "destructive" });
      } else {
        toast({ title: "Login Error", description: "Failed to authenticate admin user", variant: "destructive" });
      }
      finish();
    }
  });

  const change = (next: boolean) => {
    if (!next) reset(EMPTY);
    onOpenChange(next);
  };

  return (
    <Modal open={open} onOpenChange={change}>
      <ModalHeader icon={Lock} title="Master Administrator Login" description="Sign in to read contact submissions." />
      <form onSubmit={submit} noValidate className="flex flex-col gap-4">
        <label className="form-control w-full">
          <span className="label-text mb-1 block text-sm font-medium">Username</span>
          <input
            {...register("username")}
            type="text"
            autoComplete="username"
            required
            className={`input input-bordered w-full ${formState.errors.username ? "input-error" : ""}`}
            aria-invalid={formState.errors.username ? true : undefined}
          />
          {formState.errors.username && <span className="mt-1 block text-sm text-error">{formState.errors.username.message}</span>}
        </label>
        <label className="form-control w-full">
          <span className="label-text mb-1 block text-sm font-medium">Password</span>
          <input
            {...register("password")}
            type="password"
            autoComplete="current-password"
            required
            className={`input input-bordered w-full ${formState.errors.password ? "input-error" : ""}`}
            aria-invalid={formState.errors.password ? true : undefined}
          />
          {formState.errors.password && <span className="mt-1 block text-sm text-error">{formState.errors.password.message}</span>}
        </label>
        <button type="submit" className="btn btn-primary w-full" disabled={formState.isSubmitting}>
          {formState.isSubmitting ? "Logging in..." : "Login"}
        </button>
      </form>
      {/* only the words are dimmed: a dimmed link would fall under 4.5:1 */}
      <p className="mt-4 border-t border-base-300 pt-3 text-center text-sm" data-customer-login-hint>
        <span className="opacity-80">Not the administrator?</span>{" "}
        <Link to="/login" className="link link-primary" onClick={() => change(false)}>
          Log in to your organization's account
        </Link>
      </p>
    </Modal>
  );
}
