import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";

/**
 * One readiness probe: GET {url}/_emulator/health answers 200. `ca` trusts a certificate; `insecure` skips
 * verification (a local probe of our own self-signed certificate, as in the container health check).
 */
export function probeHealth(url: string, options: { ca?: string; insecure?: boolean; timeoutMs?: number } = {}): Promise<boolean> {
  const target = `${url}/_emulator/health`;
  return new Promise((resolve) => {
    const tlsOptions = { ca: options.ca, rejectUnauthorized: !options.insecure };
    const r = url.startsWith("https:") ? httpsGet(target, tlsOptions) : httpGet(target);
    r.setTimeout(options.timeoutMs ?? 2_000, () => r.destroy(new Error("timeout")));
    r.on("response", (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    r.on("error", () => resolve(false));
  });
}

/** Probes until healthy or `timeoutMs` passes. */
export async function waitForHealth(url: string, options: { ca?: string; timeoutMs?: number } = {}): Promise<boolean> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    if (await probeHealth(url, { ca: options.ca })) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}
