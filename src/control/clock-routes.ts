import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { readBody } from "../http/validate.js";
import { Input } from "./input.js";

const TEN_YEARS_S = 10 * 366 * 86_400;

/** A time given as Unix seconds or an ISO 8601 string, in ms; undefined (with a failure noted) when neither. */
function timeMs(input: Input, v: unknown, name: string): number | undefined {
  if (typeof v === "string" && !/^\d+(\.\d+)?$/.test(v)) {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? input.fail(name, `The ${name} must be Unix seconds or an ISO 8601 date.`) : ms;
  }
  const s = input.number(v, name, { min: 0 });
  return s === undefined ? undefined : Math.round(s * 1000);
}

/** `/_emulator/clock`: real or frozen time for every timestamp the emulator writes. */
export const clockRoutes = new Hono<Env>()
  .get("/", (c) => c.json(c.get("emulator").clock.get()))

  .put("/", async (c) => {
    const input = new Input();
    const body = input.object(await readBody(c), "", ["mode", "now"])!;
    const mode = input.string(body.mode, "mode", { required: true, in: ["real", "frozen"] });
    const at = timeMs(input, body.now, "now");
    input.done();
    const { clock } = c.get("emulator");
    if (mode === "frozen") clock.freeze(at);
    else clock.useReal(at);
    return c.json(clock.get());
  })

  .post("/advance", async (c) => {
    const input = new Input();
    const body = input.object(await readBody(c), "", ["seconds"])!;
    const seconds = input.number(body.seconds, "seconds", { required: true, min: 0, max: TEN_YEARS_S });
    input.done();
    const { clock } = c.get("emulator");
    clock.advance(seconds!);
    return c.json(clock.get());
  });
