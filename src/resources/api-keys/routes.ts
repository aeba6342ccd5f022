import { Hono } from "hono";
import type { Ctx, Env } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { pageOf } from "../../http/pagination.js";
import { ok, page, success } from "../../http/reply.js";
import { Query, readBody, validate } from "../../http/validate.js";
import type { ApiKeyRecord, KeyScope } from "../../store/types.js";
import { randomHex } from "../../util/random.js";

export const MAX_KEYS_PER_APP = 25;
const SCOPES = ["authOnly", "fullAccess"] as const;

export function keyView(k: ApiKeyRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { apiKey: k.apiKey, name: k.name, scope: k.scope, createdAt: k.createdAt };
  if (k.updatedAt !== undefined) out.updatedAt = k.updatedAt;
  return out;
}

function pathKey(c: Ctx): ApiKeyRecord {
  const key = c.req.param("apiKey")!;
  const record = c.get("app").apiKeys.get(key);
  if (!record) throw apiError("ERR_APIKEY_NOT_FOUND", { key });
  return record;
}

/** The key in the header may not update or delete itself. */
function notSelf(c: Ctx, record: ApiKeyRecord): void {
  if (record.apiKey === c.get("apiKey").apiKey) throw apiError("ERR_APIKEY_NO_SELF_ACTION", { key: record.apiKey });
}

export const apiKeys = new Hono<Env>()
  .post("/apikeys", async (c) => {
    const body = await readBody(c);
    validate(body, {
      name: { required: true, type: "string", max: 50 },
      scope: { required: true, type: "string", in: SCOPES },
    });
    const app = c.get("app");
    if (app.apiKeys.size >= MAX_KEYS_PER_APP)
      throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `An app can have at most ${MAX_KEYS_PER_APP} API keys.` });
    let apiKey: string;
    do apiKey = randomHex(40);
    while (app.apiKeys.has(apiKey));
    const record: ApiKeyRecord = {
      apiKey,
      name: body.name as string,
      scope: body.scope as KeyScope,
      createdAt: c.get("emulator").clock.now(),
    };
    app.apiKeys.set(apiKey, record);
    return ok(c, keyView(record));
  })

  .get("/apikeys", (c) => {
    const q = new Query(c);
    const scope = q.oneOf("scope", SCOPES);
    const searchKey = q.str("searchKey")?.toLowerCase();
    const perPage = q.int("perPage", { def: 100, min: 1, max: 1000 });
    const pageNo = q.int("page", { def: 1, min: 1 });
    q.done();
    const matching = [...c.get("app").apiKeys.values()].filter(
      (k) => (!scope || k.scope === scope) && (!searchKey || k.name.toLowerCase().includes(searchKey)),
    );
    const { data, pagination } = pageOf(matching, perPage, pageNo);
    return page(c, data.map(keyView), pagination);
  })

  .get("/apikeys/:apiKey", (c) => ok(c, keyView(pathKey(c))))

  .put("/apikeys/:apiKey", async (c) => {
    const record = pathKey(c);
    const body = await readBody(c);
    validate(body, {
      name: { filled: true, type: "string", max: 50 },
      scope: { filled: true, type: "string", in: SCOPES },
    });
    notSelf(c, record);
    if (typeof body.name === "string") record.name = body.name;
    if (typeof body.scope === "string") record.scope = body.scope as KeyScope;
    record.updatedAt = c.get("emulator").clock.now();
    return ok(c, keyView(record));
  })

  .delete("/apikeys/:apiKey", (c) => {
    const record = pathKey(c);
    notSelf(c, record);
    c.get("app").apiKeys.delete(record.apiKey);
    return success(c, `The Api Key ${record.apiKey} has been deleted successfully.`);
  });
