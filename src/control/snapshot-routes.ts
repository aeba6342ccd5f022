import { Hono } from "hono";
import type { Ctx, Env } from "../http/context.js";
import { apiError, badRequest } from "../http/errors.js";

const NAME = /^[A-Za-z0-9._-]{1,100}$/;

function snapshotName(c: Ctx): string {
  const name = c.req.param("name")!;
  if (!NAME.test(name))
    throw badRequest({ name: ["The name may only contain letters, numbers, dots, dashes and underscores (at most 100)."] });
  return name;
}

/** `/_emulator/snapshots`: named in-memory snapshots of the whole store. */
export const snapshotRoutes = new Hono<Env>()
  .get("/", (c) => c.json({ snapshots: c.get("emulator").control.snapshots.list() }))

  .post("/:name", (c) => c.json(c.get("emulator").control.snapshots.take(snapshotName(c)), 201))

  .post("/:name/restore", (c) => {
    const name = snapshotName(c);
    const info = c.get("emulator").control.snapshots.restore(name);
    if (!info) throw apiError("ERR_SNAPSHOT_NOT_FOUND", { name });
    return c.json(info);
  })

  .delete("/:name", (c) => {
    const name = snapshotName(c);
    if (!c.get("emulator").control.snapshots.delete(name)) throw apiError("ERR_SNAPSHOT_NOT_FOUND", { name });
    return c.json({ deleted: name });
  });
