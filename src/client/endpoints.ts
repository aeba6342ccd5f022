/**
  * The operations of the SDK's endpoint table (`@cometchat/chat-sdk-javascript` 4.2.0, `uriEndpoints`) that the
  * REST plane's own routes answer on the client plane, for the token's owner. Those whose path, method or answer
  * differs from the REST plane's (the session, promote/demote, ownership, `user/messages/{muid}`, push preferences,
  * tokens, mute and timezone) are served by `routes.ts` and `push.ts`; call signalling (`calls`,
  * `calls/{sessionid}[/type]`) by resources/calls/signalling.ts; file uploads by resources/files; the AI features
  * and the campaign service are the client plane's own (`routes.ts`). Everything else on the client plane answers ERR_API_NOT_FOUND.
 */
const SDK_OPERATIONS = [
  "GET users",
  "GET users/{uid}",
  "GET|POST|DELETE blockedusers",
  "GET|POST groups",
  "GET|PUT|DELETE groups/{guid}",
  "GET|POST|PUT|DELETE groups/{guid}/members",
  "PUT|DELETE groups/{guid}/members/{uid}",
  "GET groups/{guid}/bannedusers",
  "POST|DELETE groups/{guid}/bannedusers/{uid}",
  "GET|POST messages",
  "GET|PUT|DELETE messages/{id}",
  "GET|POST messages/{id}/thread",
  "POST|DELETE messages/{id}/thread/subscription",
  "GET messages/{id}/reactions",
  "GET|POST|DELETE messages/{id}/reactions/{reaction}",
  "POST|DELETE messages/{id}/pin",
  "POST|DELETE messages/{id}/save",
  "PATCH messages/{id}/interacted",
  "POST messages/{id}/flagged",
  "GET users/{uid}/messages",
  "GET groups/{guid}/messages",
  "GET threads",
  "GET users/{uid}/threads",
  "GET groups/{guid}/threads",
  "GET conversations",
  "GET|PUT|DELETE users/{uid}/conversation",
  "GET|PUT|DELETE groups/{guid}/conversation",
  "POST|DELETE users/{uid}/conversation/read",
  "POST|DELETE groups/{guid}/conversation/read",
  "POST users/{uid}/conversation/delivered",
  "POST groups/{guid}/conversation/delivered",
  "POST|DELETE users/{uid}/conversation/pin",
  "POST|DELETE groups/{guid}/conversation/pin",
  // Client plane only (resources/ai, resources/campaigns).
  "GET ai/conversation-starter/users/{uid}",
  "GET ai/conversation-starter/groups/{guid}",
  "GET ai/smart-replies/users/{uid}",
  "GET ai/smart-replies/groups/{guid}",
  "GET ai/conversation-summary/users/{uid}",
  "GET ai/conversation-summary/groups/{guid}",
  "GET ai/bots/{botId}/assistance/users/{uid}",
  "GET ai/bots/{botId}/assistance/groups/{guid}",
  "GET campaigns/notification-feed",
  "GET campaigns/notification-feed/{feedItemId}",
  "POST campaigns/notification-feed/{feedItemId}/delivered",
  "POST campaigns/notification-feed/{feedItemId}/read",
  "POST campaigns/notification-feed/{feedItemId}/engagement",
  "PUT campaigns/push-notifications/{pushNotificationId}/delivered",
  "PUT campaigns/push-notifications/{pushNotificationId}/clicked",
  "GET campaigns/templates/categories",
  // Answered by the client plane's own routers (resources/files, resources/calls/signalling.ts).
  "POST files/upload-url",
  "POST calls",
  "PUT calls/{sessionid}",
  "PATCH calls/{sessionid}/type",
];

const TABLE: { methods: Set<string>; path: RegExp }[] = SDK_OPERATIONS.map((line) => {
  const [methods, path] = line.split(" ");
  return { methods: new Set(methods.split("|")), path: new RegExp(`^/${path.replace(/\{\w+\}/g, "[^/]+")}$`) };
});

/** Whether the client plane serves `method` on `path` (relative to the version: `/users/superhero1`). */
export function isServed(method: string, path: string): boolean {
  return TABLE.some((op) => op.methods.has(method) && op.path.test(path));
}

/** Whether the SDK may call a REST route (its path with `:name` parameters) on the client plane. */
export const sdkServes = (method: string, routePath: string) => isServed(method, routePath.replace(/:\w+/g, "x"));
