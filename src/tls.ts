import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { REGIONS } from "./store/types.js";

/**
 * TLS for `--https`: a self-signed certificate made at start with Node's own crypto (an EC P-256 key and a small
 * DER encoder for the X.509 structure), or the user's `--cert`/`--key`. The generated key never leaves memory;
 * only the certificate is written, so that clients can trust it (`NODE_EXTRA_CA_CERTS`).
 */

export class TlsError extends Error {}

/**
 * Names the generated certificate covers. A wildcard covers exactly one label, so each (plane, region) pair of the
 * real host pattern `{appId}.api-{region}.cometchat.io` needs its own `*.api-{region}.cometchat.io`; the same goes
 * for `.localhost`, which some tools (curl) resolve to loopback.
 */
export const CERT_NAMES: readonly string[] = [
  "localhost",
  "127.0.0.1",
  "::1",
  "apimgmt.cometchat.io",
  "apimgmt.localhost",
  ...["cometchat.io", "localhost"].flatMap((domain) =>
    // REST, calls, the SDK's client plane and its WebSocket host.
    ["api", "call", "apiclient", "websocket"].flatMap((plane) => REGIONS.map((region) => `*.${plane}-${region}.${domain}`)),
  ),
];

// --- a minimal DER encoder: just what a certificate needs ---

function der(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  const n = body.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

const seq = (...items: Buffer[]) => der(0x30, ...items);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split(".").map(Number);
  const bytes = [a * 40 + b];
  for (const v of rest) {
    const groups = [v & 0x7f];
    for (let x = Math.floor(v / 128); x > 0; x = Math.floor(x / 128)) groups.unshift((x & 0x7f) | 0x80);
    for (const g of groups) bytes.push(g);
  }
  return der(0x06, Buffer.from(bytes));
}

function positiveInteger(bytes: Buffer): Buffer {
  // DER wants the shortest form: no leading zero bytes (a random serial starts with one in 1 of 256 cases,
  // which OpenSSL refuses as "illegal padding"), then one zero byte only to keep the number positive.
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.subarray(start);
  return der(0x02, minimal[0] & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal);
}

function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, "").slice(0, 14) + "Z"; // YYYYMMDDHHMMSSZ
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(iso.slice(2))) : der(0x18, Buffer.from(iso));
}

function name(commonName: string): Buffer {
  return seq(der(0x31, seq(oid("2.5.4.3"), der(0x0c, Buffer.from(commonName)))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq(oid(id), ...(critical ? [der(0x01, Buffer.from([0xff]))] : []), der(0x04, value));
}

function ipBytes(ip: string): Buffer {
  if (isIP(ip) === 4) return Buffer.from(ip.split(".").map(Number));
  const [head, tail = ""] = ip.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = ip.includes("::") ? [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t] : h;
  return Buffer.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}

const ECDSA_SHA256 = "1.2.840.10045.4.3.2";

/** A self-signed certificate (PEM) and its private key (PEM) for `names` (DNS names, wildcards and IPs). */
export function selfSignedCertificate(names: readonly string[] = CERT_NAMES, days = 365): { cert: string; key: string } {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = publicKey.export({ type: "spki", format: "der" });
  const now = Date.now();
  const altNames = names.map((n) => (isIP(n) ? der(0x87, ipBytes(n)) : der(0x82, Buffer.from(n))));
  const serial = randomBytes(16);
  // A name of its own: OpenSSL finds trust anchors by name, so two trusted certificates must not share one.
  const subject = name(`chat-emulator local ${serial.toString("hex").slice(0, 12)}`);
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))), // version 3
    positiveInteger(serial),
    seq(oid(ECDSA_SHA256)),
    subject,
    seq(time(new Date(now - 3_600_000)), time(new Date(now + days * 86_400_000))),
    subject,
    spki,
    der(
      0xa3,
      seq(
        extension("2.5.29.19", true, seq()), // basicConstraints: not a CA
        extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1"))), // extKeyUsage: serverAuth
        extension("2.5.29.17", false, seq(...altNames)), // subjectAltName
        extension("2.5.29.14", false, der(0x04, createHash("sha1").update(spki).digest())), // subjectKeyIdentifier
      ),
    ),
  );
  const signature = sign("sha256", tbs, privateKey);
  const cert = seq(tbs, seq(oid(ECDSA_SHA256)), der(0x03, Buffer.from([0]), signature));
  const pem = `-----BEGIN CERTIFICATE-----\n${cert.toString("base64").replace(/.{64}/g, "$&\n").trimEnd()}\n-----END CERTIFICATE-----\n`;
  return { cert: pem, key: privateKey.export({ type: "pkcs8", format: "pem" }) as string };
}

export interface TlsMaterial {
  cert: string;
  key: string;
  /** Where the certificate can be read by clients (the given `--cert`, or the generated file). */
  certPath: string;
  /** Removes what was generated (nothing for user files). */
  dispose(): void;
}

/** The user's certificate and key files, checked to form a usable pair. */
export function loadTls(certPath: string, keyPath: string): TlsMaterial {
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path, "utf8");
    } catch (e) {
      throw new TlsError(`${what} ${path} cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}).`);
    }
  };
  const cert = read(certPath, "--cert");
  const key = read(keyPath, "--key");
  try {
    new X509Certificate(cert);
    createSecureContext({ cert, key });
  } catch (e) {
    throw new TlsError(`--cert ${certPath} and --key ${keyPath} are not a PEM certificate and its key (${(e as Error).message}).`);
  }
  return { cert, key, certPath, dispose() {} };
}

/** Generates a certificate and writes it (not the key) to a fresh private temp folder. */
export function generateTls(): TlsMaterial {
  const { cert, key } = selfSignedCertificate();
  const dir = mkdtempSync(join(tmpdir(), "chat-emulator-tls-"));
  const certPath = join(dir, "cert.pem");
  writeFileSync(certPath, cert);
  return { cert, key, certPath, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `--https`, `--cert`, `--key` -> what to serve TLS with (`--cert`/`--key` imply `--https`), or undefined for HTTP. */
export function resolveTls(options: { https?: boolean; cert?: string; key?: string }): TlsMaterial | undefined {
  if (options.cert !== undefined || options.key !== undefined) {
    if (options.cert === undefined || options.key === undefined) throw new TlsError("--cert and --key go together.");
    return loadTls(options.cert, options.key);
  }
  return options.https ? generateTls() : undefined;
}
