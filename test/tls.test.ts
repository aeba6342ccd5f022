import { X509Certificate } from "node:crypto";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, TlsError, type RunningEmulator } from "../src/index.js";
import { resolveTls, selfSignedCertificate } from "../src/tls.js";
import { APP_ID, REST_KEY } from "./helpers.js";
import { httpsGet } from "./tls.helpers.js";
import { tempDir } from "./tmp.helpers.js";

describe("generated certificate", () => {
  it("is valid DER every time, whatever its random serial (one in 256 starts with a zero byte)", () => {
    for (let i = 0; i < 600; i++) {
      const { cert, key } = selfSignedCertificate();
      expect(() => createSecureContext({ cert, key })).not.toThrow();
    }
  });

  const { cert } = selfSignedCertificate();
  const x509 = new X509Certificate(cert);

  it("covers the real host names of every plane and region, loopback, and nothing else", () => {
    for (const host of [
      `${APP_ID}.api-us.cometchat.io`,
      "myapp123.api-eu.cometchat.io",
      "myapp123.api-in.cometchat.io",
      "myapp123.call-eu.cometchat.io",
      "apimgmt.cometchat.io",
      "localhost",
      "myapp123.api-us.localhost",
      `${APP_ID}.apiclient-us.cometchat.io`,
      `${APP_ID}.websocket-eu.cometchat.io`,
      `${APP_ID}.apiclient-in.localhost`,
      `${APP_ID}.websocket-us.localhost`,
    ])
      expect(x509.checkHost(host), host).toBeTruthy();
    expect(x509.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(x509.checkIP("::1")).toBeTruthy();
    for (const host of ["a.b.api-us.cometchat.io", "cometchat.io", "api-us.cometchat.io", "example.com"])
      expect(x509.checkHost(host), host).toBeUndefined();
  });

  it("is self-signed, valid now, and not a CA", () => {
    expect(x509.verify(x509.publicKey)).toBe(true);
    expect(x509.issuer).toBe(x509.subject);
    expect(Date.parse(x509.validFrom)).toBeLessThan(Date.now());
    expect(Date.parse(x509.validTo)).toBeGreaterThan(Date.now() + 300 * 86_400_000);
    expect(x509.ca).toBe(false);
  });

  it("gets a fresh key and a name of its own each time (trust stores find certificates by name)", () => {
    const other = selfSignedCertificate();
    expect(other.key).not.toBe(selfSignedCertificate().key);
    expect(new X509Certificate(other.cert).subject).not.toBe(x509.subject);
  });
});

describe("--cert and --key", () => {
  it("go together, must be readable, and must be a certificate with its key", () => {
    const dir = tempDir("tls-test");
    const a = selfSignedCertificate();
    const b = selfSignedCertificate();
    writeFileSync(join(dir, "a.pem"), a.cert);
    writeFileSync(join(dir, "a.key"), a.key);
    writeFileSync(join(dir, "b.key"), b.key);
    expect(() => resolveTls({ cert: join(dir, "a.pem") })).toThrow(/--cert and --key go together/);
    expect(() => resolveTls({ cert: join(dir, "missing.pem"), key: join(dir, "a.key") })).toThrow(/missing\.pem cannot be read \(ENOENT\)/);
    expect(() => resolveTls({ cert: join(dir, "a.pem"), key: join(dir, "b.key") })).toThrow(TlsError);
    expect(() => resolveTls({ cert: join(dir, "a.key"), key: join(dir, "a.key") })).toThrow(/not a PEM certificate/);
    expect(resolveTls({ cert: join(dir, "a.pem"), key: join(dir, "a.key") })!.certPath).toBe(join(dir, "a.pem"));
    expect(resolveTls({})).toBeUndefined();
  });
});

describe("startEmulator({ https: true })", () => {
  let e: RunningEmulator | undefined;
  afterEach(async () => {
    await e?.close();
    e = undefined;
  });

  it("serves HTTPS to the real host name (SNI and Host) with the certificate it wrote, and removes it on close", async () => {
    e = await startEmulator({ https: true });
    expect(e.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(e.baseUrl()).toBe(`${e.url}/${APP_ID}.api-us/v3`);
    const certPath = e.tls!.certPath;
    expect(existsSync(certPath)).toBe(true);
    const r = await httpsGet(e.port, `${APP_ID}.api-us.cometchat.io`, "/v3/users/superhero1", e.tls!.cert, { apikey: REST_KEY });
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe("Iron Man");
    await e.close();
    expect(existsSync(certPath)).toBe(false);
  });

  it("refuses a client that does not trust the certificate", async () => {
    e = await startEmulator({ https: true });
    const other = selfSignedCertificate().cert;
    await expect(httpsGet(e.port, `${APP_ID}.api-us.cometchat.io`, "/v3/users", other)).rejects.toThrow(/self[- ]signed/i);
  });
});

describe("a start that fails after the certificate was made (port in use)", () => {
  it("removes the certificate it wrote", async () => {
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = tempDir("tmpdir"); // os.tmpdir() reads it on each call
    try {
      const taken = await startEmulator({ quiet: true });
      await expect(startEmulator({ https: true, port: taken.port })).rejects.toThrow(/EADDRINUSE/);
      await taken.close();
      expect(readdirSync(process.env.TMPDIR).filter((f) => f.startsWith("chat-emulator-tls-"))).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
