import type { Ctx } from "../../http/context.js";
import { apiError } from "../../http/errors.js";
import { PAGE_QUERY, pageOf } from "../../http/pagination.js";
import { ok, page, success } from "../../http/reply.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
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

export const apiKeys = routes(
  operation({
    id: "create-apikey",
    method: "POST",
    path: "/apikeys",
    plane: "rest",
    body: {
      name: { required: true, type: "string", max: 50 },
      scope: { required: true, type: "string", in: SCOPES },
    },
    handler: (c, { body }) => {
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
    },
  }),

  operation({
    id: "list-apikeys",
    method: "GET",
    path: "/apikeys",
    plane: "rest",
    query: { scope: q.oneOf(SCOPES), searchKey: q.str(), ...PAGE_QUERY },
    handler: (c, { query }) => {
      const { scope, perPage, page: pageNo } = query;
      const searchKey = query.searchKey?.toLowerCase();
      const matching = [...c.get("app").apiKeys.values()].filter(
        (k) => (!scope || k.scope === scope) && (!searchKey || k.name.toLowerCase().includes(searchKey)),
      );
      const { data, pagination } = pageOf(matching, perPage, pageNo);
      return page(c, data.map(keyView), pagination);
    },
  }),

  operation({
    id: "get-apikey",
    method: "GET",
    path: "/apikeys/:apiKey",
    plane: "rest",
    handler: (c) => ok(c, keyView(pathKey(c))),
  }),

  operation({
    id: "update-apikey",
    method: "PUT",
    path: "/apikeys/:apiKey",
    plane: "rest",
    body: {
      name: { filled: true, type: "string", max: 50 },
      scope: { filled: true, type: "string", in: SCOPES },
    },
    handler: (c, { body }) => {
      const record = pathKey(c);
      notSelf(c, record);
      if (typeof body.name === "string") record.name = body.name;
      if (typeof body.scope === "string") record.scope = body.scope as KeyScope;
      record.updatedAt = c.get("emulator").clock.now();
      return ok(c, keyView(record));
    },
  }),

  operation({
    id: "delete-apikey",
    method: "DELETE",
    path: "/apikeys/:apiKey",
    plane: "rest",
    handler: (c) => {
      const record = pathKey(c);
      notSelf(c, record);
      c.get("app").apiKeys.delete(record.apiKey);
      return success(c, `The Api Key ${record.apiKey} has been deleted successfully.`);
    },
  }),
);
