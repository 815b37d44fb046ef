/**
 * A real IMAP server for tests: Debian's dovecot, started unprivileged in a temporary
 * directory on a free 127.0.0.1 port (plain IMAP, `ssl = no`), with passwd-file users and
 * maildir storage. Under root (here and in CI) dovecot refuses to run its login process
 * as root, so it uses the `dovenull`/`dovecot` users the Debian package creates.
 */
import { spawnSync, type Subprocess } from "bun";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { ImapFlow } from "imapflow";
import { freePort } from "./server";

export const DOVECOT_BINARY = "/usr/sbin/dovecot";
export const dovecotMissing = !existsSync(DOVECOT_BINARY);

export interface ImapUser {
  user: string;
  password: string;
}

export interface Dovecot {
  host: string;
  port: number;
  dir: string;
  users: ImapUser[];
  /** an imapflow client logged in as `user` (logout when done) */
  client(user: ImapUser): Promise<ImapFlow>;
  append(user: ImapUser, folder: string, raw: string | Uint8Array): Promise<void>;
  /** message count of a folder, or null when it does not exist */
  count(user: ImapUser, folder: string): Promise<number | null>;
  log(): string;
  stop(): Promise<void>;
}

function idOf(name: string): { uid: number; gid: number } | null {
  const res = spawnSync(["id", "-u", name]);
  const res2 = spawnSync(["id", "-g", name]);
  if (res.exitCode !== 0 || res2.exitCode !== 0) return null;
  return { uid: Number(res.stdout.toString().trim()), gid: Number(res2.stdout.toString().trim()) };
}

function waitForGreeting(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const socket = connect(port, "127.0.0.1");
      socket.once("data", (chunk) => {
        socket.destroy();
        if (chunk.toString().startsWith("* OK")) resolve();
        else retry();
      });
      socket.once("error", () => {
        socket.destroy();
        retry();
      });
    };
    const retry = () => (Date.now() > deadline ? reject(new Error("dovecot did not start")) : setTimeout(attempt, 100));
    attempt();
  });
}

export async function startDovecot(users: ImapUser[] = [{ user: "reports", password: "imap-secret-1" }]): Promise<Dovecot> {
  const dir = mkdtempSync(join(tmpdir(), "dw-dovecot-"));
  chmodSync(dir, 0o755); // the login process runs as another user and must reach base_dir
  const port = await freePort();
  const root = process.getuid?.() === 0;
  const me = userInfo().username;
  // dovecot refuses root for its login process and for mail users
  const mailOwner = root ? (idOf("dovecot") ?? idOf("nobody")!) : { uid: process.getuid!(), gid: process.getgid!() };
  const internalUser = root ? (idOf("dovecot") ? "dovecot" : "nobody") : me;
  const loginUser = root ? (idOf("dovenull") ? "dovenull" : "nobody") : me;
  const internalGroup = spawnSync(["id", "-gn", internalUser]).stdout.toString().trim() || internalUser;
  const mailDir = join(dir, "mail");
  for (const sub of ["run", "state", "mail"]) mkdirSync(join(dir, sub));
  if (root) chownSync(mailDir, mailOwner.uid, mailOwner.gid);
  writeFileSync(join(dir, "passwd"), users.map((u) => `${u.user}:{PLAIN}${u.password}::::::`).join("\n") + "\n");
  writeFileSync(
    join(dir, "dovecot.conf"),
    `protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
# answer a wrong password at once (the default waits 2 s)
auth_failure_delay = 0
default_internal_user = ${internalUser}
default_internal_group = ${internalGroup}
default_login_user = ${loginUser}
first_valid_uid = ${mailOwner.uid}
first_valid_gid = ${mailOwner.gid}
mail_location = maildir:${mailDir}/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${mailOwner.uid} gid=${mailOwner.gid} home=${mailDir}/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
  # no login penalty after a wrong password: the tests try one on purpose
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
`,
  );
  const proc: Subprocess = Bun.spawn([DOVECOT_BINARY, "-F", "-c", join(dir, "dovecot.conf")], { stdout: "pipe", stderr: "pipe" });
  const log = () => (existsSync(join(dir, "dovecot.log")) ? readFileSync(join(dir, "dovecot.log"), "utf8") : "");
  try {
    await waitForGreeting(port);
  } catch (error) {
    proc.kill();
    throw new Error(`dovecot did not start: ${log()}`);
  }

  const client = async (user: ImapUser) => {
    const c = new ImapFlow({ host: "127.0.0.1", port, secure: false, auth: { user: user.user, pass: user.password }, logger: false, disableAutoIdle: true });
    c.on("error", () => {});
    await c.connect();
    return c;
  };
  return {
    host: "127.0.0.1",
    port,
    dir,
    users,
    client,
    async append(user, folder, raw) {
      const c = await client(user);
      try {
        await c.mailboxCreate(folder).catch(() => {});
        await c.append(folder, typeof raw === "string" ? raw : Buffer.from(raw));
      } finally {
        await c.logout();
      }
    },
    async count(user, folder) {
      const c = await client(user);
      try {
        const status = await c.status(folder, { messages: true }).catch(() => false as const);
        return status ? (status.messages ?? 0) : null;
      } finally {
        await c.logout();
      }
    },
    log,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
