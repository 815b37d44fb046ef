import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { Route, Routes } from "react-router";
import { cleanUpAfterEach, json, renderWithProviders, withFetch } from "../../tests/support/ui";
import { ADMIN_SESSION_KEY } from "../lib/adminSession";
import { AdminLoginDialog } from "./AdminLoginDialog";

beforeEach(() => localStorage.clear());
afterEach(() => localStorage.clear());
cleanUpAfterEach();

function Harness() {
  const [open, setOpen] = useState(false);
  return (
    <Routes>
      <Route
        path="/"
        element={
          <>
            <button type="button" onClick={() => setOpen(true)}>
              Sign In
            </button>
            <p>dialog is {open ? "open" : "closed"}</p>
            <AdminLoginDialog open={open} onOpenChange={setOpen} />
          </>
        }
      />
      <Route path="/admin/dashboard" element={<p>console page</p>} />
    </Routes>
  );
}

function answer(respond: () => Response | Promise<Response>) {
  const f = withFetch(respond);
  return f.calls;
}

async function openAndFill(user: ReturnType<typeof userEvent.setup>, username = "admin", password = "secret-pass") {
  await user.click(screen.getByRole("button", { name: "Sign In" }));
  await user.type(await screen.findByLabelText("Username"), username);
  await user.type(screen.getByLabelText("Password"), password);
}

async function reopenIsEmpty(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole("button", { name: "Sign In" }));
  expect((screen.getByLabelText("Username") as HTMLInputElement).value).toBe("");
  expect((screen.getByLabelText("Password") as HTMLInputElement).value).toBe("");
}

describe("admin login dialog (SPEC §4/§8)", () => {
  test("success: Logging in..., session stored, toast, console opened, dialog closed and cleared", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const calls = answer(async () => {
      await gate;
      return json({ success: true, sessionId: "s-123", message: "Login successful" });
    });
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await openAndFill(user);
    await user.click(screen.getByRole("button", { name: "Login" }));
    expect(await screen.findByRole("button", { name: "Logging in..." })).toBeTruthy();
    release();
    expect(await screen.findByText("Admin Login Successful")).toBeTruthy();
    expect(screen.getByText("Welcome to the Master Admin console")).toBeTruthy();
    expect(await screen.findByText("console page")).toBeTruthy();
    expect(localStorage.getItem(ADMIN_SESSION_KEY)).toBe("s-123");
    expect(calls[0]!.url).toBe("/api/admin/login");
    expect(JSON.parse(String(calls[0]!.init.body))).toEqual({ username: "admin", password: "secret-pass" });
    expect(screen.queryByLabelText("Username")).toBeNull();
  });

  test("success:false shows Login Failed with the server's message; closes and clears", async () => {
    answer(() => json({ success: false, message: "Invalid credentials" }));
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await openAndFill(user);
    await user.click(screen.getByRole("button", { name: "Login" }));
    expect(await screen.findByText("Login Failed")).toBeTruthy();
    expect(screen.getByText("Invalid credentials")).toBeTruthy();
    expect(screen.getByText("dialog is closed")).toBeTruthy();
    expect(localStorage.getItem(ADMIN_SESSION_KEY)).toBeNull();
    await reopenIsEmpty(user);
  });

  test("success:false without a message falls back to Invalid credentials", async () => {
    answer(() => json({ success: false }));
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await openAndFill(user);
    await user.click(screen.getByRole("button", { name: "Login" }));
    expect(await screen.findByText("Login Failed")).toBeTruthy();
    expect(screen.getByText("Invalid credentials")).toBeTruthy();
  });

  test("a 401 refusal with success:false shows Login Failed with the server's message, not Login Error", async () => {
    answer(() => json({ success: false, message: "Invalid credentials" }, 401));
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await openAndFill(user);
    await user.click(screen.getByRole("button", { name: "Login" }));
    expect(await screen.findByText("Login Failed")).toBeTruthy();
    expect(screen.getByText("Invalid credentials")).toBeTruthy();
    expect(screen.queryByText("Login Error")).toBeNull();
    expect(screen.getByText("dialog is closed")).toBeTruthy();
    expect(localStorage.getItem(ADMIN_SESSION_KEY)).toBeNull();
    await reopenIsEmpty(user);
  });

  test("a 401 refusal without a readable message falls back to Invalid credentials", async () => {
    answer(() => new Response("", { status: 401 }));
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await openAndFill(user);
    await user.click(screen.getByRole("button", { name: "Login" }));
    expect(await screen.findByText("Login Failed")).toBeTruthy();
    expect(screen.getByText("Invalid credentials")).toBeTruthy();
  });

  test("an exception (e.g. 429 or network) shows Login Error; closes and clears", async () => {
    answer(() => json({ error: { code: "rate_limited", message: "Too many" } }, 429));
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await openAndFill(user);
    await user.click(screen.getByRole("button", { name: "Login" }));
    expect(await screen.findByText("Login Error")).toBeTruthy();
    expect(screen.getByText("Failed to authenticate admin user")).toBeTruthy();
    expect(screen.getByText("dialog is closed")).toBeTruthy();
    await reopenIsEmpty(user);
  });

  test("username and password are required; nothing is sent", async () => {
    const calls = answer(() => json({ success: true, sessionId: "x", message: "" }));
    const user = userEvent.setup();
    renderWithProviders(<Harness />);
    await user.click(screen.getByRole("button", { name: "Sign In" }));
    await user.click(await screen.findByRole("button", { name: "Login" }));
    expect(await screen.findByText("Username is required")).toBeTruthy();
    expect(screen.getByText("Password is required")).toBeTruthy();
    await waitFor(() => expect(calls).toHaveLength(0));
    expect(screen.getByText("dialog is open")).toBeTruthy();
  });
});
