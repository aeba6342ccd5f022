import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { configDir } from "./config-dir.js";
import { REGIONS } from "./store/types.js";
import { makeFoldersSync } from "./util/folders.js";

/**
 * TLS for `--https`: a server certificate signed by a local certificate authority, both made with Node's own crypto
 * (EC P-256 keys and a small DER encoder for the X.509 structure) and kept in the user's configuration folder, so
 * that a browser, the system or `NODE_EXTRA_CA_CERTS` trusts the CA once for every later start; or the user's
 * `--cert`/`--key`.
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

function pem(label: string, der: Buffer): string {
  return `-----BEGIN ${label}-----\n${der.toString("base64").replace(/.{64}/g, "$&\n").trimEnd()}\n-----END ${label}-----\n`;
}

/** Who signs a certificate: its common name (the issuer name) and private key. Absent: the certificate itself. */
interface Issuer {
  commonName: string;
  key: KeyObject;
  keyId: Buffer;
}

interface CertificateSpec {
  commonName: string;
  days: number;
  /** A certificate authority (signs others), or a server certificate for `names`. */
  ca?: boolean;
  names?: readonly string[];
  issuer?: Issuer;
}

/** A certificate (PEM) and its fresh key: self-signed, or signed by `issuer`. */
function makeCertificate(spec: CertificateSpec): { cert: string; key: string } {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const spki = publicKey.export({ type: "spki", format: "der" });
  const keyId = createHash("sha1").update(spki).digest();
  const now = Date.now();
  const extensions = spec.ca
    ? [
        extension("2.5.29.19", true, seq(der(0x01, Buffer.from([0xff])), der(0x02, Buffer.from([0])))), // basicConstraints: CA, pathLen 0
        extension("2.5.29.15", true, der(0x03, Buffer.from([0x01, 0x06]))), // keyUsage: keyCertSign, cRLSign
      ]
    : [
        extension("2.5.29.19", true, seq()), // basicConstraints: not a CA
        extension("2.5.29.15", true, der(0x03, Buffer.from([0x07, 0x80]))), // keyUsage: digitalSignature
        extension("2.5.29.37", false, seq(oid("1.3.6.1.5.5.7.3.1"))), // extKeyUsage: serverAuth
        extension("2.5.29.17", false, seq(...(spec.names ?? []).map((n) => (isIP(n) ? der(0x87, ipBytes(n)) : der(0x82, Buffer.from(n)))))), // subjectAltName
      ];
  extensions.push(extension("2.5.29.14", false, der(0x04, keyId))); // subjectKeyIdentifier
  if (spec.issuer) extensions.push(extension("2.5.29.35", false, seq(der(0x80, spec.issuer.keyId)))); // authorityKeyIdentifier
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))), // version 3
    positiveInteger(randomBytes(16)),
    seq(oid(ECDSA_SHA256)),
    name(spec.issuer?.commonName ?? spec.commonName),
    seq(time(new Date(now - 3_600_000)), time(new Date(now + spec.days * 86_400_000))),
    name(spec.commonName),
    spki,
    der(0xa3, seq(...extensions)),
  );
  const signature = sign("sha256", tbs, spec.issuer?.key ?? privateKey);
  const cert = seq(tbs, seq(oid(ECDSA_SHA256)), der(0x03, Buffer.from([0]), signature));
  return { cert: pem("CERTIFICATE", cert), key: privateKey.export({ type: "pkcs8", format: "pem" }) as string };
}

/** A name of its own: OpenSSL finds trust anchors by name, so two trusted certificates must not share one. */
function uniqueName(what: string): string {
  return `chat-emulator ${what} ${randomBytes(6).toString("hex")}`;
}

/** A self-signed certificate (PEM) and its private key (PEM) for `names` (DNS names, wildcards and IPs). */
export function selfSignedCertificate(names: readonly string[] = CERT_NAMES, days = 365): { cert: string; key: string } {
  return makeCertificate({ commonName: uniqueName("local"), days, names });
}

export interface TlsMaterial {
  cert: string;
  key: string;
  /** What clients are told to trust: the given `--cert`, or the local CA's certificate. */
  certPath: string;
  /** Releases what this start made for itself (nothing: user files and the kept CA stay). */
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

/** Days the local CA and the server certificate are valid; the server one is renewed this many days before its end. */
const CA_DAYS = 3650;
/** Under 825 days: the longest validity macOS and iOS accept for a TLS server certificate. */
const SERVER_DAYS = 800;
const RENEW_DAYS = 30;

/** The files of the local certificate authority and the server certificate it signed, in `<config dir>/tls/`. */
export interface LocalCaPaths {
  dir: string;
  /** The CA certificate: what a browser, a system store or `NODE_EXTRA_CA_CERTS` is told to trust, once. */
  caCert: string;
  caKey: string;
  /** The server certificate (every emulator host name) and its key, renewed before they expire. */
  cert: string;
  key: string;
}

export function localCaPaths(configDir: string): LocalCaPaths {
  const dir = join(configDir, "tls");
  return { dir, caCert: join(dir, "ca.pem"), caKey: join(dir, "ca-key.pem"), cert: join(dir, "cert.pem"), key: join(dir, "key.pem") };
}

function readIf(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function commonNameOf(x509: X509Certificate): string | undefined {
  return /(?:^|\n)CN=([^\n]+)/.exec(x509.subject)?.[1];
}

const validFor = (x509: X509Certificate, days: number) => Date.parse(x509.validTo) > Date.now() + days * 86_400_000;

/** The kept CA when its files are a usable pair that stays valid past a renewal of the server certificate. */
function keptCa(paths: LocalCaPaths): { cert: string; issuer: Issuer } | undefined {
  const cert = readIf(paths.caCert);
  const keyText = readIf(paths.caKey);
  if (!cert || !keyText) return undefined;
  try {
    const x509 = new X509Certificate(cert);
    const key = createPrivateKey(keyText);
    const commonName = commonNameOf(x509);
    if (!x509.ca || !commonName || !x509.checkPrivateKey(key) || !validFor(x509, SERVER_DAYS)) return undefined;
    const keyId = createHash("sha1").update(x509.publicKey.export({ type: "spki", format: "der" })).digest();
    return { cert, issuer: { commonName, key, keyId } };
  } catch {
    return undefined;
  }
}

/** The kept server certificate when it was signed by `ca`, matches its key, covers every name and is not due. */
function keptServer(paths: LocalCaPaths, ca: X509Certificate): { cert: string; key: string } | undefined {
  const cert = readIf(paths.cert);
  const key = readIf(paths.key);
  if (!cert || !key) return undefined;
  try {
    const x509 = new X509Certificate(cert);
    const sans = new Set((x509.subjectAltName ?? "").split(", ").map((s) => s.replace(/^(DNS|IP Address):/, "")));
    if (!x509.verify(ca.publicKey) || !x509.checkPrivateKey(createPrivateKey(key)) || !validFor(x509, RENEW_DAYS)) return undefined;
    return CERT_NAMES.every((n) => sans.has(isIP(n) === 6 ? ipv6Text(n) : n)) ? { cert, key } : undefined;
  } catch {
    return undefined;
  }
}

/** An IPv6 address as X509Certificate.subjectAltName prints it (eight groups, upper case, no zero compression). */
function ipv6Text(ip: string): string {
  const b = ipBytes(ip);
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i] << 8) | b[i + 1]).toString(16).toUpperCase());
  return groups.join(":");
}

function writeAtomically(path: string, text: string, mode: number): void {
  const tmp = `${path}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

/**
 * The local CA and server certificate kept in `configDir`, made on first use and reused by every later start, so a
 * developer trusts the CA once. A CA that is missing, damaged or near its end is made anew (and must be trusted
 * again); the server certificate is re-signed when it nears its end or no longer covers every host name.
 */
export function localCa(configDir: string): { paths: LocalCaPaths; created: { ca: boolean; server: boolean }; ca: string; cert: string; key: string } {
  const paths = localCaPaths(configDir);
  try {
    makeFoldersSync(paths.dir, 0o700);
    let ca = keptCa(paths);
    const created = { ca: !ca, server: false };
    if (!ca) {
      const made = makeCertificate({ commonName: uniqueName("local CA"), days: CA_DAYS, ca: true });
      // The key goes first: a CA certificate on disk always has its key beside it.
      writeAtomically(paths.caKey, made.key, 0o600);
      writeAtomically(paths.caCert, made.cert, 0o644);
      ca = keptCa(paths)!;
    }
    let server = created.ca ? undefined : keptServer(paths, new X509Certificate(ca.cert));
    if (!server) {
      server = makeCertificate({ commonName: uniqueName("local"), days: SERVER_DAYS, names: CERT_NAMES, issuer: ca.issuer });
      writeAtomically(paths.key, server.key, 0o600);
      writeAtomically(paths.cert, server.cert, 0o644);
      created.server = true;
    }
    return { paths, created, ca: ca.cert, ...server };
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new TlsError(
      `the local certificate in ${paths.dir} cannot be made or read (${err.code ?? err.message}); ` +
        "set CHAT_EMULATOR_CONFIG_DIR to a writable folder, or pass --cert and --key.",
    );
  }
}

/** `--https` without files: the kept local CA's server certificate, served with the CA behind it. */
export function localTls(configDir: string): TlsMaterial {
  const { paths, ca, cert, key } = localCa(configDir);
  return { cert: cert + ca, key, certPath: paths.caCert, dispose() {} };
}

/** `--https`, `--cert`, `--key` -> what to serve TLS with (`--cert`/`--key` imply `--https`), or undefined for HTTP. */
export function resolveTls(options: { https?: boolean; cert?: string; key?: string }): TlsMaterial | undefined {
  if (options.cert !== undefined || options.key !== undefined) {
    if (options.cert === undefined || options.key === undefined) throw new TlsError("--cert and --key go together.");
    return loadTls(options.cert, options.key);
  }
  return options.https ? localTls(configDir()) : undefined;
}
