/**
 * One client cannot hold the SMTP receiver of the built executable: connections past the
 * per-address cap get 421 while a sender from another address still delivers; a client
 * that never sends MAIL FROM is closed with 421; message rates per client address and per
 * report address are answered with temporary (4xx) failures. Clients use distinct loopback
 * addresses (127.0.0.2, 127.0.0.3, … are all local on Linux) so they count as different senders.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { connect, type Socket } from "node:net";
import { freePort, startServer, type RunningServer } from "../support/server";
import { aggregateReportMail, sendMail } from "../support/smtp";

const DOMAIN = "reports.dmarcwarden.test";

interface Receiver {
  server: RunningServer;
  smtpPort: number;
  /** report address of each signed-up organisation, by name */
  addresses: Record<string, string>;
}

async function startReceiver(flags: string[], organisations: string[]): Promise<Receiver> {
  const smtpPort = await freePort();
  const server = await startServer({ args: ["--smtp-port", String(smtpPort), "--smtp-host", "127.0.0.1", "--smtp-domain", DOMAIN, "--imap-poll-interval", "0", ...flags] });
  const addresses: Record<string, string> = {};
  for (const [i, name] of organisations.entries()) {
    const post = (path: string, body: unknown, cookie = "") =>
      fetch(server.url + path, { method: "POST", headers: { origin: server.url, "content-type": "application/json", cookie }, body: JSON.stringify(body) });
    const signup = await post("/api/auth/signup", { name: "Owner", email: `owner${i}@example.com`, password: "a-long-password-1", organization: name });
    expect(signup.status).toBeLessThan(300);
    const cookie = signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    expect((await post("/api/domains", { name: `${name.toLowerCase()}.example` }, cookie)).status).toBeLessThan(300);
    const address = await fetch(server.url + "/api/settings/report-address", { headers: { cookie } }).then((r) => r.json());
    addresses[name] = address.address;
  }
  return { server, smtpPort, addresses };
}

/** A bare connection from `localAddress`; `reply()` waits for the next reply line, `closed` for the server to close it. */
function rawClient(port: number, localAddress: string) {
  const socket: Socket = connect({ port, host: "127.0.0.1", localAddress });
  const lines: string[] = [];
  let buffer = "";
  let wake: (() => void) | null = null;
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("error", () => {});
  socket.on("data", (chunk) => {
    buffer += chunk.toString();
    for (let i = buffer.indexOf("\r\n"); i >= 0; i = buffer.indexOf("\r\n")) {
      lines.push(buffer.slice(0, i));
      buffer = buffer.slice(i + 2);
    }
    wake?.();
  });
  void closed.then(() => wake?.());
  let read = 0;
  const reply = async (): Promise<string | null> => {
    while (read >= lines.length) {
      if (socket.destroyed) return null;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    return lines[read++]!;
  };
  return { socket, reply, closed };
}

function storedReportIds(server: RunningServer): string[] {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return db.query<{ report_id: string }, []>("SELECT report_id FROM aggregate_reports").all().map((r) => r.report_id);
  } finally {
    db.close();
  }
}

describe("connections", () => {
  let r: Receiver;
  const clients: ReturnType<typeof rawClient>[] = [];
  beforeAll(async () => {
    r = await startReceiver(["--smtp-max-connections-per-address", "3"], ["Acme"]);
  }, 180_000);
  afterAll(async () => {
    for (const c of clients) c.socket.destroy();
    await r?.server.stop();
  });

  test("a client holding many idle connections gets 421 past the per-address cap, and a sender from another address still delivers", async () => {
    // more idle connections than the receiver serves at once in total (100)
    for (let i = 0; i < 110; i++) clients.push(rawClient(r.smtpPort, "127.0.0.2"));
    const first = await Promise.all(clients.map((c) => c.reply()));
    const greeted = first.filter((line) => line?.startsWith("220"));
    const refused = first.filter((line) => line?.startsWith("421"));
    expect(greeted).toHaveLength(3);
    expect(refused).toHaveLength(107);
    expect(refused.some((line) => /too many connections from your address/i.test(line!))).toBe(true);

    // the hog still holds its three connections, idle
    const sent = await sendMail(r.smtpPort, { from: "noreply-dmarc-support@google.com", to: [r.addresses.Acme!] }, aggregateReportMail({ domain: "acme.example", reportId: "past-the-hog" }), { localAddress: "127.0.0.3" });
    expect(sent.response).toMatch(/^250/);
    expect(storedReportIds(r.server)).toContain("past-the-hog");
  }, 60_000);
});

describe("idle clients and message rates", () => {
  let r: Receiver;
  beforeAll(async () => {
    r = await startReceiver(["--smtp-idle-timeout", "1", "--smtp-messages-per-address", "3", "--smtp-messages-per-token", "2"], ["Acme", "Beta"]);
  }, 180_000);
  afterAll(async () => {
    await r?.server.stop();
  });
  let open: ReturnType<typeof rawClient> | null = null;
  afterEach(() => {
    open?.socket.destroy();
    open = null;
  });

  test("a client that never sends MAIL FROM is closed with 421", async () => {
    open = rawClient(r.smtpPort, "127.0.0.5");
    expect(await open.reply()).toMatch(/^220/);
    const next = await open.reply();
    expect(next).toMatch(/^421 /);
    expect(next).toMatch(/MAIL FROM/);
    await open.closed;
    expect(open.socket.destroyed).toBe(true);
  }, 30_000);

  test("a client that says EHLO but no MAIL FROM is closed too", async () => {
    open = rawClient(r.smtpPort, "127.0.0.6");
    expect(await open.reply()).toMatch(/^220/);
    open.socket.write("EHLO sender.example\r\n");
    let line = await open.reply();
    while (line && line.startsWith("250-")) line = await open.reply();
    expect(line).toMatch(/^250 /);
    expect(await open.reply()).toMatch(/^421 /);
    await open.closed;
  }, 30_000);

  test("messages past the limit per report address and per client address get temporary failures, and nothing is stored for them", async () => {
    const mail = (reportId: string, domain: string) => aggregateReportMail({ domain, reportId });
    const send = (to: string, reportId: string, domain: string, localAddress: string) => sendMail(r.smtpPort, { from: "noreply-dmarc-support@google.com", to: [to] }, mail(reportId, domain), { localAddress });
    const acme = r.addresses.Acme!;
    const beta = r.addresses.Beta!;

    // per report address: two messages in the window, from any senders
    expect((await send(acme, "rate-1", "acme.example", "127.0.0.10")).response).toMatch(/^250/);
    expect((await send(acme, "rate-2", "acme.example", "127.0.0.11")).response).toMatch(/^250/);
    const perToken = await send(acme, "rate-3", "acme.example", "127.0.0.12");
    expect(perToken.accepted).toBe(false);
    expect(perToken.responseCode).toBe(450);
    expect(perToken.response).toMatch(/too many messages for this report address/i);

    // per client address: 127.0.0.12 has sent one message; two more go through, the fourth does not
    expect((await send(beta, "rate-4", "beta.example", "127.0.0.12")).response).toMatch(/^250/);
    expect((await send(beta, "rate-5", "beta.example", "127.0.0.12")).response).toMatch(/^250/);
    const perAddress = await send(beta, "rate-6", "beta.example", "127.0.0.12");
    expect(perAddress.accepted).toBe(false);
    expect(perAddress.responseCode).toBe(451);
    expect(perAddress.response).toMatch(/too many messages from your address/i);

    expect(storedReportIds(r.server).sort()).toEqual(["rate-1", "rate-2", "rate-4", "rate-5"]);
  }, 60_000);
});
