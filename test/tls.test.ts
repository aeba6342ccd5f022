import { X509Certificate } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSecureContext } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator, TlsError, type RunningEmulator } from "../src/index.js";
import { configDir } from "../src/config-dir.js";
import { localCa, resolveTls, selfSignedCertificate } from "../src/tls.js";
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

  it("serves HTTPS to the real host name (SNI and Host) with the kept local CA's certificate, which stays after close", async () => {
    e = await startEmulator({ https: true });
    expect(e.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(e.baseUrl()).toBe(`${e.url}/${APP_ID}.api-us/v3`);
    const caPath = e.tls!.certPath;
    expect(caPath).toBe(join(process.env.CHAT_EMULATOR_CONFIG_DIR!, "tls", "ca.pem"));
    // Trusting the CA alone is enough: the served chain is the server certificate it signed.
    const r = await httpsGet(e.port, `${APP_ID}.api-us.cometchat.io`, "/v3/users/superhero1", readFileSync(caPath, "utf8"), { apikey: REST_KEY });
    expect(r.status).toBe(200);
    expect(r.body.data.name).toBe("Iron Man");
    await e.close();
    expect(existsSync(caPath)).toBe(true);
  });

  it("refuses a client that does not trust the certificate", async () => {
    e = await startEmulator({ https: true });
    const other = selfSignedCertificate().cert;
    await expect(httpsGet(e.port, `${APP_ID}.api-us.cometchat.io`, "/v3/users", other)).rejects.toThrow(/self[- ]signed|unable to (get|verify)/i);
  });
});

describe("the local CA (kept in the configuration folder)", () => {
  it("is made once and reused by every later start: CA and server certificate unchanged", () => {
    const dir = tempDir("config");
    const first = localCa(dir);
    expect(first.created).toEqual({ ca: true, server: true });
    const again = localCa(dir);
    expect(again.created).toEqual({ ca: false, server: false });
    expect(again.ca).toBe(first.ca);
    expect(again.cert).toBe(first.cert);
    expect(again.key).toBe(first.key);
    expect(statSync(first.paths.caKey).mode & 0o077).toBe(0);
    expect(statSync(first.paths.key).mode & 0o077).toBe(0);
  });

  it("is a CA; the server certificate it signed covers every host name and passes Node's verification", () => {
    const { ca, cert } = localCa(tempDir("config"));
    const caX509 = new X509Certificate(ca);
    const server = new X509Certificate(cert);
    expect(caX509.ca).toBe(true);
    expect(server.ca).toBe(false);
    expect(server.verify(caX509.publicKey)).toBe(true);
    expect(server.issuer).toBe(caX509.subject);
    expect(server.checkIssued(caX509)).toBe(true);
    for (const host of [`${APP_ID}.apiclient-us.cometchat.io`, "localhost", "apimgmt.cometchat.io"]) expect(server.checkHost(host), host).toBeTruthy();
    // macOS refuses TLS server certificates valid for more than 825 days.
    expect(Date.parse(server.validTo) - Date.parse(server.validFrom)).toBeLessThan(825 * 86_400_000);
  });

  it("re-signs a damaged server certificate with the same CA, and makes a new CA when its key is gone", () => {
    const dir = tempDir("config");
    const first = localCa(dir);
    writeFileSync(first.paths.cert, "not a certificate");
    const renewed = localCa(dir);
    expect(renewed.created).toEqual({ ca: false, server: true });
    expect(renewed.ca).toBe(first.ca);
    expect(renewed.cert).not.toBe(first.cert);
    rmSync(first.paths.caKey);
    const fresh = localCa(dir);
    expect(fresh.created).toEqual({ ca: true, server: true });
    expect(fresh.ca).not.toBe(first.ca);
  });

  it("answers a TlsError naming the folder and the way out when it cannot be written", () => {
    const file = join(tempDir("config"), "a-file");
    writeFileSync(file, "");
    expect(() => localCa(file)).toThrow(TlsError);
    expect(() => localCa(file)).toThrow(/CHAT_EMULATOR_CONFIG_DIR .* --cert and --key/);
  });
});

describe("the configuration folder", () => {
  it("follows each system's convention; CHAT_EMULATOR_CONFIG_DIR wins", () => {
    expect(configDir({ CHAT_EMULATOR_CONFIG_DIR: "/x/y" }, "linux", "/home/u")).toBe("/x/y");
    expect(configDir({}, "linux", "/home/u")).toBe("/home/u/.config/chat-emulator");
    expect(configDir({ XDG_CONFIG_HOME: "/xdg" }, "linux", "/home/u")).toBe("/xdg/chat-emulator");
    expect(configDir({}, "darwin", "/Users/u")).toBe("/Users/u/Library/Application Support/chat-emulator");
    expect(configDir({ APPDATA: "C:/Users/u/AppData/Roaming" }, "win32", "C:/Users/u")).toBe(join("C:/Users/u/AppData/Roaming", "chat-emulator"));
  });
});
