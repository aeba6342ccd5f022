import { Hono } from "hono";
import type { Env } from "../http/context.js";
import { readBody } from "../http/validate.js";
import { Input } from "./input.js";

/** `/_emulator/advice`: whether request advice also goes out as a response header, and whether it refuses (strict). */
export const adviceRoutes = new Hono<Env>()
  .get("/", (c) => c.json(c.get("emulator").control.advice))

  .put("/", async (c) => {
    const input = new Input();
    const body = input.object(await readBody(c), "", ["header", "strict"])!;
    const header = input.boolean(body.header, "header");
    const strict = input.boolean(body.strict, "strict");
    input.done();
    const { advice } = c.get("emulator").control;
    if (header !== undefined) advice.header = header;
    if (strict !== undefined) advice.strict = strict;
    return c.json(advice);
  });
