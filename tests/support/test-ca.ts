/**
 * A throw-away certificate authority made with openssl at test time, and leaf certificates it
 * signs (valid, expiring soon, expired, for other names), for the HTTPS and STARTTLS probes.
 * The checks are told to trust it through --extra-ca-file / ProbeOptions.extraCa.
 */
import { spawnSync } from "bun";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Leaf {
  cert: string;
  key: string;
}

export interface TestCa {
  /** the CA certificate, PEM */
  caPem: string;
  /** its file, for --extra-ca-file */
  caFile: string;
  /** a leaf for `names` (the first is the subject); `validity` as openssl ca's -startdate/-enddate (YYYYMMDDHHMMSSZ) or days from now */
  leaf(names: string[], validity?: { days: number } | { start: string; end: string }): Leaf;
  cleanup(): void;
}

function openssl(args: string[], cwd: string) {
  const run = spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${run.stderr.toString()}`);
}

export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "dw-test-ca-"));
  openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=dmarcwarden test CA"], dir);
  writeFileSync(join(dir, "index.txt"), "");
  writeFileSync(join(dir, "serial"), "1000\n");
  writeFileSync(
    join(dir, "ca.cnf"),
    ["[ca]", "default_ca = test", "[test]", `dir = ${dir}`, "database = $dir/index.txt", "serial = $dir/serial", "new_certs_dir = $dir", "certificate = $dir/ca.pem", "private_key = $dir/ca.key", "default_md = sha256", "policy = any", "unique_subject = no", "copy_extensions = copy", "[any]", "commonName = supplied", ""].join("\n"),
  );
  let counter = 0;
  return {
    caPem: readFileSync(join(dir, "ca.pem"), "utf8"),
    caFile: join(dir, "ca.pem"),
    leaf(names, validity = { days: 30 }) {
      const n = ++counter;
      const san = names.map((name) => `DNS:${name}`).join(",");
      openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", `leaf${n}.key`, "-out", `leaf${n}.csr`, "-subj", `/CN=${names[0]}`, "-addext", `subjectAltName=${san}`], dir);
      const dates = "days" in validity ? ["-days", String(validity.days)] : ["-startdate", validity.start, "-enddate", validity.end];
      openssl(["ca", "-batch", "-config", "ca.cnf", "-in", `leaf${n}.csr`, "-out", `leaf${n}.pem`, "-notext", ...dates], dir);
      return { cert: readFileSync(join(dir, `leaf${n}.pem`), "utf8"), key: readFileSync(join(dir, `leaf${n}.key`), "utf8") };
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
