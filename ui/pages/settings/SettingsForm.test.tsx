import { describe, expect, test } from "bun:test";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { cleanUpAfterEach, renderWithProviders, withFetch } from "../../../tests/support/ui";
import { SettingsForm } from "./SettingsForm";

const saved = {
  organizationName: "Acme Dental",
  contactEmail: "it@acme.example",
  emailNotifications: false,
  dmarcRua: "dmarc@acme.example",
  dmarcRuf: "",
  autoProcessReports: true,
  dnsCaching: true,
  cacheTtlSeconds: 7200,
  realtimeThreatMonitoring: false,
  complianceAlerts: true,
  digestEnabled: true,
  digestDay: 1,
  digestHour: 8,
  digestIncludeClients: false,
  retentionAggregateDays: 400,
  retentionFailureDays: 90,
  hasClients: false,
  canEdit: true,
  updatedAt: null,
};

let stub: ReturnType<typeof withFetch> | null = null;
cleanUpAfterEach();

function render(view = saved, put?: (body: any) => Response) {
  stub = withFetch((_url, init) => {
    if (init.method === "PUT") return put ? put(JSON.parse(String(init.body))) : Response.json({ ...JSON.parse(String(init.body)), canEdit: true, updatedAt: new Date().toISOString() });
    return Response.json(view);
  });
  return renderWithProviders(<SettingsForm />);
}

describe("settings form (SPEC §2 Settings page)", () => {
  test("shows the saved values; TTL placeholder 3600; Save Settings sends them and confirms", async () => {
    const user = userEvent.setup();
    render();
    const name = (await screen.findByLabelText("Organization name")) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe("Acme Dental"));
    const ttl = screen.getByLabelText("Cache TTL (seconds)") as HTMLInputElement;
    expect(ttl.placeholder).toBe("3600");
    expect(ttl.value).toBe("7200");
    expect((screen.getByLabelText(/Email notifications/) as HTMLInputElement).checked).toBe(false);
    await user.clear(ttl);
    await user.type(ttl, "600");
    await user.click(screen.getByLabelText(/Compliance alerts/));
    await user.click(screen.getByRole("button", { name: "Save Settings" }));
    expect(await screen.findByText("Settings Saved")).toBeTruthy();
    const put = stub!.calls.find((c) => c.init.method === "PUT")!;
    expect(JSON.parse(String(put.init.body))).toMatchObject({ cacheTtlSeconds: 600, complianceAlerts: false, organizationName: "Acme Dental" });
  });

  test("Reset to Defaults restores the default preferences (not saved until Save Settings)", async () => {
    const user = userEvent.setup();
    render();
    const ttl = (await screen.findByLabelText("Cache TTL (seconds)")) as HTMLInputElement;
    await waitFor(() => expect(ttl.value).toBe("7200"));
    await user.click(screen.getByRole("button", { name: "Reset to Defaults" }));
    expect(ttl.value).toBe("3600");
    expect((screen.getByLabelText(/Email notifications/) as HTMLInputElement).checked).toBe(true);
    expect((screen.getByLabelText("Organization name") as HTMLInputElement).value).toBe("Acme Dental");
    expect(stub!.calls.some((c) => c.init.method === "PUT")).toBe(false);
  });

  test("a TTL out of bounds is refused in the form; a server refusal shows the failure toast", async () => {
    const user = userEvent.setup();
    render(saved, () => Response.json({ error: { code: "validation", message: "Organization name must be at least 2 characters", fields: { organizationName: "Organization name must be at least 2 characters" } } }, { status: 400 }));
    const ttl = (await screen.findByLabelText("Cache TTL (seconds)")) as HTMLInputElement;
    await waitFor(() => expect(ttl.value).toBe("7200"));
    await user.clear(ttl);
    await user.type(ttl, "5");
    await user.click(screen.getByRole("button", { name: "Save Settings" }));
    expect(await screen.findByText("Enter a cache TTL from 60 to 86400 seconds")).toBeTruthy();
    expect(stub!.calls.some((c) => c.init.method === "PUT")).toBe(false);
    await user.clear(ttl);
    await user.type(ttl, "120");
    await user.click(screen.getByRole("button", { name: "Save Settings" }));
    expect(await screen.findByText("Failed to Save Settings")).toBeTruthy();
    expect(await screen.findAllByText("Organization name must be at least 2 characters")).not.toHaveLength(0);
  });

  test("weekly digest: on/off, day and hour (UTC) are saved; the client option shows only for an MSP", async () => {
    const user = userEvent.setup();
    render();
    const name = (await screen.findByLabelText("Organization name")) as HTMLInputElement;
    await waitFor(() => expect(name.value).toBe("Acme Dental"));
    const day = screen.getByLabelText("Digest day") as HTMLSelectElement;
    expect(screen.queryByLabelText(/Include client organizations/)).toBeNull();
    await user.selectOptions(day, "Friday");
    await user.selectOptions(screen.getByLabelText("Digest hour (UTC)"), "18:00 UTC");
    await user.click(screen.getByRole("button", { name: "Save Settings" }));
    expect(await screen.findByText("Settings Saved")).toBeTruthy();
    const put = stub!.calls.find((c) => c.init.method === "PUT")!;
    expect(JSON.parse(String(put.init.body))).toMatchObject({ digestEnabled: true, digestDay: 5, digestHour: 18, digestIncludeClients: false });
  });

  test("an MSP can have its digest cover its client organizations", async () => {
    render({ ...saved, hasClients: true });
    expect(await screen.findByLabelText(/Include client organizations/)).toBeTruthy();
  });

  test("members and viewers see the settings read-only", async () => {
    render({ ...saved, canEdit: false });
    expect(await screen.findByText("Only admins and owners can change these settings.")).toBeTruthy();
    expect((screen.getByRole("group") as HTMLFieldSetElement).disabled).toBe(true);
  });
});
