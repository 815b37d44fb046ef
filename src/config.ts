/**
 * Flags + environment → one typed, validated Config.
 *
 * Every flag has an environment twin. A flag given on the command line wins over the
 * environment, which wins over the default. A bad value throws ConfigError, which the CLI
 * prints as one line before exiting with code 2.
 */
export class ConfigError extends Error {}

type FlagKind = "string" | "int" | "bool" | "list";

export interface FlagSpec {
  /** long flag name without the dashes, e.g. "port" */
  name: string;
  /** environment twin, e.g. "PORT" */
  env: string;
  kind: FlagKind;
  help: string;
  /** which commands read this flag (for --help); "*" for all */
  commands: string[];
  default?: string | number | boolean | string[];
  /** placeholder shown in --help */
  value?: string;
  /** optional extra check; return an error message to refuse the value */
  check?: (value: any) => string | undefined;
}

const port = (v: number) => (v < 0 || v > 65535 ? "must be a port number from 0 to 65535" : undefined);

/** The one table of flags. Features add their own rows here, so --help stays complete. */
export const FLAGS: FlagSpec[] = [
  { name: "port", env: "PORT", kind: "int", default: 8080, value: "N", commands: ["serve"], help: "HTTP port to listen on", check: port },
  { name: "host", env: "HOST", kind: "string", default: "0.0.0.0", value: "ADDR", commands: ["serve"], help: "address to bind the HTTP server to" },
  { name: "db", env: "DATABASE_PATH", kind: "string", default: "./data/dmarcwarden.db", value: "PATH", commands: ["*"], help: "SQLite database file (created on first start)" },
  { name: "public-url", env: "PUBLIC_URL", kind: "string", default: "", value: "URL", commands: ["serve"], help: "the address users reach the server at, e.g. https://dmarc.example.com (links in mail, Secure cookies)", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  { name: "trust-proxy", env: "TRUST_PROXY", kind: "bool", default: false, commands: ["serve"], help: "take the client address from X-Forwarded-For (only behind your own reverse proxy)" },
  { name: "seed-admin", env: "SEED_ADMIN", kind: "string", default: "", value: "USER:PASS", commands: ["serve"], help: "create or update the Master Administrator (also ADMIN_USERNAME / ADMIN_PASSWORD)", check: (v: string) => (v && !/^[^:]+:.+$/.test(v) ? "must be USER:PASS" : undefined) },
  { name: "log-level", env: "LOG_LEVEL", kind: "string", default: "info", value: "LEVEL", commands: ["*"], help: "debug, info, warn or error", check: (v: string) => (["debug", "info", "warn", "error"].includes(v) ? undefined : "must be debug, info, warn or error") },
];

export interface Config {
  port: number;
  host: string;
  db: string;
  publicUrl: string;
  trustProxy: boolean;
  seedAdmin: { username: string; password: string } | null;
  logLevel: "debug" | "info" | "warn" | "error";
  /** every flag by its name, for features that add flags */
  raw: Record<string, unknown>;
  /** positional arguments after the command */
  args: string[];
}

function convert(spec: FlagSpec, input: string, from: string): unknown {
  switch (spec.kind) {
    case "int": {
      if (!/^-?\d+$/.test(input.trim())) throw new ConfigError(`${from}: "${input}" is not a whole number`);
      return Number.parseInt(input, 10);
    }
    case "bool": {
      const v = input.trim().toLowerCase();
      if (["1", "true", "yes", "on", ""].includes(v)) return true;
      if (["0", "false", "no", "off"].includes(v)) return false;
      throw new ConfigError(`${from}: "${input}" is not true or false`);
    }
    case "list":
      return input.split(",").map((s) => s.trim()).filter(Boolean);
    default:
      return input;
  }
}

/**
 * Parse argv (without the command) and the environment.
 * Unknown flags are refused so a typo never silently falls back to a default.
 */
export function parseConfig(argv: string[], env: Record<string, string | undefined> = process.env, command = "serve"): Config {
  const values: Record<string, unknown> = {};
  const fromCli = new Set<string>();
  const args: string[] = [];
  const byName = new Map(FLAGS.map((f) => [f.name, f]));

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (!token.startsWith("--")) {
      args.push(token);
      continue;
    }
    let name = token.slice(2);
    let inline: string | undefined;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      inline = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    let negate = false;
    let spec = byName.get(name);
    if (!spec && name.startsWith("no-") && byName.get(name.slice(3))?.kind === "bool") {
      spec = byName.get(name.slice(3));
      negate = true;
    }
    if (!spec) throw new ConfigError(`unknown flag --${name} (see --help)`);
    let value: unknown;
    if (spec.kind === "bool") {
      value = inline === undefined ? !negate : convert(spec, inline, `--${name}`);
    } else {
      const raw = inline ?? argv[++i];
      if (raw === undefined) throw new ConfigError(`--${name} needs a value (${spec.value ?? "VALUE"})`);
      value = convert(spec, raw, `--${name}`);
    }
    if (spec.kind === "list" && fromCli.has(spec.name)) {
      values[spec.name] = [...(values[spec.name] as string[]), ...(value as string[])];
    } else {
      values[spec.name] = value;
    }
    fromCli.add(spec.name);
  }

  for (const spec of FLAGS) {
    if (!fromCli.has(spec.name)) {
      const envValue = env[spec.env];
      values[spec.name] = envValue !== undefined && envValue !== "" ? convert(spec, envValue, spec.env) : spec.default;
    }
    const problem = spec.check?.(values[spec.name]);
    if (problem) throw new ConfigError(`--${spec.name} (${spec.env}): ${problem}`);
  }

  let seedAdmin: Config["seedAdmin"] = null;
  const seed = values["seed-admin"] as string;
  if (seed) {
    const i = seed.indexOf(":");
    seedAdmin = { username: seed.slice(0, i), password: seed.slice(i + 1) };
  } else if (env.ADMIN_USERNAME || env.ADMIN_PASSWORD) {
    if (!env.ADMIN_USERNAME || !env.ADMIN_PASSWORD) throw new ConfigError("ADMIN_USERNAME and ADMIN_PASSWORD must be set together");
    seedAdmin = { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD };
  }
  void command;

  return {
    port: values.port as number,
    host: values.host as string,
    db: values.db as string,
    publicUrl: (values["public-url"] as string).replace(/\/+$/, ""),
    trustProxy: values["trust-proxy"] as boolean,
    seedAdmin,
    logLevel: values["log-level"] as Config["logLevel"],
    raw: values,
    args,
  };
}

/** A config for tests and library use: defaults plus overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...parseConfig([], {}), db: ":memory:", ...overrides };
}

export function flagHelp(command: string): string {
  const rows = FLAGS.filter((f) => f.commands.includes("*") || f.commands.includes(command));
  return rows
    .map((f) => {
      const left = `  --${f.name}${f.kind === "bool" ? "" : ` ${f.value ?? "VALUE"}`}`;
      const def = f.default !== undefined && f.default !== "" && f.kind !== "bool" ? ` (default ${Array.isArray(f.default) ? f.default.join(",") || "none" : f.default})` : "";
      return `${left.padEnd(30)} ${f.help}${def}  [env ${f.env}]`;
    })
    .join("\n");
}
