import { request } from "node:https";

/** GET over HTTPS to 127.0.0.1 with `host` as SNI and Host header, trusting only `ca`. */
export function httpsGet(port: number, host: string, path: string, ca: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, servername: host, ca, headers: { host, ...headers } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end();
  });
}
