import { probeHealth } from "./health.js";

/**
 * Container health check (`HEALTHCHECK CMD ["node", ".../dist/healthcheck.js"]`): exits 0 when the emulator on
 * 127.0.0.1:$CHAT_EMULATOR_PORT (default 4780) answers its readiness probe over HTTP or HTTPS, 1 otherwise.
 * Needs nothing but node (no curl in slim images).
 */
const port = process.env.CHAT_EMULATOR_PORT || "4780";
let healthy = false;
for (const scheme of ["http", "https"]) {
  if (await probeHealth(`${scheme}://127.0.0.1:${port}`, { insecure: true })) {
    healthy = true;
    break;
  }
}
process.exit(healthy ? 0 : 1);
