import fc from "fast-check";
import { expect, it } from "vitest";
import { fuzz, prototypeSweep, type FuzzStats } from "./fuzz.lib.js";
import { APP_ID, emulator } from "./helpers.js";

/**
 * The fuzz suite: a bounded run here (part of `npm test`); `npm run fuzz` runs a long one
 * (FUZZ_REQUESTS, FUZZ_SEED to repeat a run).
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 2500);
const SEED = Number(process.env.FUZZ_SEED ?? 17);

const counts = (stats: FuzzStats) =>
  `${stats.requests} requests over ${stats.routes} routes: ${stats.serverErrors} 5xx, ${stats.nonEnvelope} errors outside the envelope, ` +
  `${stats.refusedButChanged} refusals that changed state; statuses ${JSON.stringify(stats.byStatus)}; codes ${JSON.stringify(stats.byCode)}`;

it(`${REQUESTS} fuzzed requests over every route: no 5xx, errors in the envelope, refusals change nothing`, async () => {
  const stats = await fuzz(REQUESTS, SEED);
  console.log(`fuzz (seed ${SEED}): ${counts(stats)}`);
  expect(stats.failures).toEqual([]);
  expect(stats.requests).toBe(REQUESTS);
}, Math.max(60_000, REQUESTS * 20));

const OVER_HTTP = Math.ceil(REQUESTS / 2);
it(`${OVER_HTTP} fuzzed requests over a socket (Node's server and the platform lane): the same properties`, async () => {
  const stats = await fuzz(OVER_HTTP, SEED + 1, true);
  console.log(`fuzz over HTTP (seed ${SEED + 1}): ${counts(stats)}`);
  expect(stats.failures).toEqual([]);
  expect(stats.requests).toBe(OVER_HTTP);
}, Math.max(60_000, OVER_HTTP * 20));

it("keys, ids and query names named like Object's properties, on every route: never a 5xx", async () => {
  const stats = await prototypeSweep();
  console.log(`prototype sweep: ${counts(stats)}`);
  expect(stats.failures).toEqual([]);
}, 120_000);

it("any file name at files/upload-url: refused with details, or uploaded and served (never a 5xx)", async () => {
  const e = await emulator();
  const token = (await e.post("/v3/users/superhero1/auth_tokens", {})).body.data.authToken as string;
  const client = (path: string, init: RequestInit = {}) =>
    e.app.request(`http://localhost/${APP_ID}.apiclient-us/v3.0${path}`, { ...init, headers: { appid: APP_ID, authtoken: token, ...(init.headers as object) } });
  const local = (url: string) => url.replace(/^https?:\/\/[^/]+/, "http://localhost");
  const unit = fc.oneof(fc.constantFrom("\ud800", "\udfff", "\ud83d\ude00", "\u0000", "\r\n", "%", "\"", ";", "é"), fc.string({ unit: "grapheme", maxLength: 2 }));
  await fc.assert(
    fc.asyncProperty(fc.string({ unit, minLength: 1, maxLength: 12 }), async (name) => {
      const asked = await client("/files/upload-url", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ files: { f: { fileId: "f", name, size: 1, mimeType: "text/plain" } } }),
      });
      expect(asked.status).toBeLessThan(500);
      const body = await asked.json();
      if (asked.status !== 200) {
        expect(body.error.code).toBe("ERR_BAD_REQUEST");
        return;
      }
      const form = new FormData();
      form.append("file", new Blob(["x"]), "x.txt");
      expect((await e.app.request(local(body.data.f.request.url), { method: "POST", body: form })).status).toBe(204);
      const served = await e.app.request(local(body.data.f.attachment.url));
      expect(served.status).toBe(200);
      expect(await served.text()).toBe("x");
    }),
    { numRuns: 150, seed: SEED },
  );
});
