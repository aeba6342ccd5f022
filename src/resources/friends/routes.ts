import { apiError, keyedMap } from "../../http/errors.js";
import { normalizeUid } from "../../http/auth.js";
import { bulkFailure, success, ok } from "../../http/reply.js";
import { asBool } from "../../http/validate.js";
import type { Schema } from "../../http/schema.js";
import { operation, routes } from "../../http/operation.js";
import { q } from "../../http/query-spec.js";
import { PAGE_QUERY } from "../../http/pagination.js";
import type { AppState } from "../../store/app-state.js";
import type { UserRecord } from "../../store/types.js";
import { userConversationId } from "../../store/conversation-ids.js";
import { pathUser, requireUser } from "../users/lookup.js";
import { relatedUsersPage } from "../blocked-users/flags.js";
import { USERS_PER_CALL } from "../groups/membership.js";

export const FRIENDS_PER_USER = 1000;

const UIDS = { type: "array", required: true, items: { required: true, type: "string" } } as const;

const ADD: Schema = {
  // rest-api/friends: "Maximum of 25 users can be passed in the accepted array."
  accepted: { ...UIDS, maxItems: USERS_PER_CALL },
  addToConversations: { type: "boolean" },
};

function befriend(app: AppState, user: UserRecord, uid: string, now: number, addToConversations: boolean): void {
  const friend = requireUser(app, uid);
  if (friend.uid === user.uid) throw apiError("ERR_CANNOT_FORM_SELF_RELATION", { uid: user.uid });
  if (app.relations.friendship(user.uid, friend.uid)) throw apiError("ERR_ALREADY_FRIEND", { uid: friend.uid, friend: user.uid });
  // A friendship counts toward both users' limit.
  for (const u of [user, friend])
    if (app.relations.friendsOf(u.uid).size >= FRIENDS_PER_USER)
      throw apiError("ERR_PLAN_QUOTA_RESTRICTION", { what: `The user ${u.uid} has reached the limit of ${FRIENDS_PER_USER} friends.` });
  app.relations.befriend({ uid: user.uid, friendUid: friend.uid, createdAt: now });
  if (addToConversations) {
    app.conversations.open([user.uid, friend.uid], app.messages.lastId, now);
    const conversationId = userConversationId(user.uid, friend.uid);
    for (const uid of [user.uid, friend.uid]) app.conversationActivity.touchFor(uid, conversationId);
  }
}

export const friends = routes(
  operation({
    id: "add-friend",
    method: "POST",
    path: "/users/:uid/friends",
    plane: "rest",
    body: ADD,
    handler: (c, { body }) => {
      const user = pathUser(c);
      const app = c.get("app");
      const now = c.get("emulator").clock.now();
      const accepted: Record<string, unknown> = keyedMap();
      for (const uid of body.accepted as string[]) {
        try {
          befriend(app, user, uid, now, asBool(body.addToConversations));
          accepted[uid] = { success: true, message: "Created relationship with status accepted." };
        } catch (e) {
          accepted[uid] = bulkFailure(e);
        }
      }
      return ok(c, { accepted });
    },
  }),

  operation({
    id: "list-all-friends",
    method: "GET",
    path: "/users/:uid/friends",
    plane: "rest",
    query: { searchKey: q.str(), ...PAGE_QUERY },
    handler: (c, { query }) => {
      const user = pathUser(c);
      const app = c.get("app");
      const searchKey = query.searchKey?.toLowerCase();
      const { perPage, page: pageNo } = query;
      const list: UserRecord[] = [];
      for (const uid of app.relations.friendsOf(user.uid).keys()) {
        const f = app.activeUser(uid);
        if (f && (!searchKey || f.uid.startsWith(searchKey) || f.name.toLowerCase().startsWith(searchKey))) list.push(f);
      }
      return relatedUsersPage(c, user, list, perPage, pageNo);
    },
  }),

  operation({
    id: "remove-friend",
    method: "DELETE",
    path: "/users/:uid/friends",
    plane: "rest",
    body: { friends: UIDS },
    handler: (c, { body }) => {
      const user = pathUser(c);
      const app = c.get("app");
      const uids = (body.friends as string[]).map(normalizeUid);
      const known = uids.filter((uid) => app.relations.friendship(user.uid, uid));
      if (known.length === 0) throw apiError("ERR_NOT_A_FRIEND", { uid: user.uid, friend: uids.join(", ") });
      for (const uid of known) app.relations.unfriend(user.uid, uid);
      return success(c, "Deleted the friend relations succussfully");
    },
  }),
);
