/**
 * Seed and state documents the loader refuses, shared by the loader's tests (control, saved-state-loads, calls,
 * cli.e2e, data-file-refusal, ai-campaigns, notifications) and by test/schemas.test.ts, which
 * checks that the published JSON Schemas refuse them too, unless the rule is one a schema cannot express.
 */

/**
 * The rules of the loader that the JSON Schemas (schemas/*.schema.json) cannot express, as docs/data-files.md
 * lists them (#schemas-and-editor-completion). A refused case that the schema lets through names one of these.
 */
export const NOT_IN_SCHEMA = {
  references: "a name refers to a record of the same app (a user's role, members, bans, senders and receivers, reactions, marks, bots, agents, friends, blocks, tokens)",
  owner: "a seed group's owner is one of its members; a banned user is no member",
  unique: "uids, guids, roles, API keys, app ids, reaction ids and call session ids are unique in their list",
  order: "message ids increase; a reply's parent is an earlier message of the same conversation",
  patterns: "user patterns (pattern rules, pattern keyword lists, data-masking masks) compile in RE2 within the size limits, masks match no empty text",
  calls: "a call's times follow each other, its participants are its parties and joined while it ran, its session id names its app and region",
  self: "friends and blocks relate two different users",
} as const;

export type NotInSchema = keyof typeof NOT_IN_SCHEMA;

/** A document the loader refuses: `error` is its message after the source label ("seed: "). */
export interface RefusedDocument {
  name: string;
  doc: unknown;
  error: string;
  /** Set when the schema cannot tell: the rule it lacks. */
  notInSchema?: NotInSchema;
}

const A1 = { appId: "a1", name: "A" };
const withApp = (app: object) => ({ apps: [{ app: A1, ...app }] });

/** A seed with one group, beside the user u1 (control.test.ts). */
export const seedWithGroup = (group: object) => withApp({ users: [{ uid: "u1", name: "U" }], groups: [group] });

/** Seeds the loader's tests load (control.test.ts, calls.test.ts); test/schemas.test.ts checks the schema takes them. */
export const GOOD_SEEDS = {
  ownRoles: {
    apps: [
      {
        app: { appId: "abc123", name: "Custom", region: "eu" },
        apiKeys: [{ apiKey: "k".repeat(40), name: "Rest API Key", scope: "fullAccess" }],
        roles: [{ role: "moderator", name: "Moderator" }],
        users: [{ uid: "mod1", name: "Mod", role: "moderator" }],
      },
    ],
  },
  groupsAndMessages: {
    apps: [
      {
        app: { appId: "abc123", name: "Custom" },
        apiKeys: [{ apiKey: "k".repeat(40), name: "Rest API Key", scope: "fullAccess" }],
        users: [{ uid: "u1", name: "One" }, { uid: "u2", name: "Two" }, { uid: "u3", name: "Three" }],
        groups: [{ guid: "crew", name: "Crew", owner: "u1", members: [{ uid: "u1", scope: "admin" }, { uid: "u2" }], bannedUsers: [{ uid: "u3" }] }],
        messages: [{ id: 10, sender: "u1", receiverType: "group", receiver: "crew", data: { text: "hi" } }, { sender: "u2", receiver: "u1", data: { text: "yo" } }],
      },
    ],
  },
};

/** Bad seeds, by what is wrong (control.test.ts "refuses a bad seed with the path of the bad field"). */
export const BAD_SEEDS = {
  unknownRole: {
    name: "a user with an unknown role",
    doc: withApp({ users: [{ uid: "u1", name: "U", role: "ghost" }] }),
    error: "apps[0].users[0].role names the unknown role ghost",
    notInSchema: "references",
  },
  badRegion: {
    name: "an app in an unknown region",
    doc: { apps: [{ app: { ...A1, region: "mars" } }] },
    error: "apps[0].app.region must be one of us, eu, in",
  },
  unknownMember: {
    name: "a group member who is no user",
    doc: seedWithGroup({ guid: "g", name: "G", members: [{ uid: "u2" }] }),
    error: "apps[0].groups[0].members[0].uid names the unknown user u2",
    notInSchema: "references",
  },
  passwordless: {
    name: "a password group without a password",
    doc: seedWithGroup({ guid: "g", name: "G", type: "password" }),
    error: "apps[0].groups[0].password is required for a password group",
  },
  ownerNotMember: {
    name: "a group whose owner is no member",
    doc: seedWithGroup({ guid: "g", name: "G", owner: "u1" }),
    error: "apps[0].groups[0].owner names u1, who is not a member",
    notInSchema: "owner",
  },
  badScope: {
    name: "a member with an unknown scope",
    doc: seedWithGroup({ guid: "g", name: "G", members: [{ uid: "u1", scope: "boss" }] }),
    error: "apps[0].groups[0].members[0].scope must be one of admin, moderator, participant",
  },
  unknownCallee: {
    name: "a call to a user who is not in the seed (calls.test.ts)",
    doc: {
      apps: [
        {
          app: { appId: "callseed", name: "Calls", region: "eu" },
          apiKeys: [{ apiKey: "c".repeat(40), name: "Rest API Key", scope: "fullAccess" }],
          users: [{ uid: "a", name: "A" }, { uid: "b", name: "B" }],
          calls: [{ initiator: "a", receiver: "z" }],
        },
      ],
    },
    error: "apps[0].calls[0].receiver names the unknown user z",
    notInSchema: "references",
  },
  actionWithStranger: {
    name: "an action kept in a conversation with an unknown user (saved-state-loads.test.ts)",
    doc: actionSeed("nobody_user_u1"),
    error: "apps[0].messages[0].conversationId names the unknown user nobody",
    notInSchema: "references",
  },
  noApps: {
    name: "an object without apps (data-file-refusal.test.ts)",
    doc: { hello: "world" },
    error: "apps is missing: this is not a chat-emulator seed or state file",
  },
} satisfies Record<string, RefusedDocument>;

/** A seed whose one message is an action by app_system on u1's message, kept in `conversationId`. */
export function actionSeed(conversationId: string) {
  const action = { sender: "app_system", receiver: "u1", category: "action", type: "message", data: {} };
  return withApp({ users: [{ uid: "u1", name: "U1" }, { uid: "u2", name: "U2" }], messages: [{ ...action, conversationId }] });
}

/** A seed with moderation state and management (saved-state-loads.test.ts: user patterns). */
export const moderationSeed = (moderation: unknown, management?: unknown) =>
  withApp({
    users: [{ uid: "u1", name: "U1" }],
    moderation: { reasons: [], rules: [], keywordLists: [], blocked: [], flags: [], moderated: [], ...(moderation as object) },
    management,
  });
export const keywordList = (searchTerms: string[], category = "pattern") => ({ id: "l1", name: "L", category, isCSV: false, searchTerms, revision: 1, createdAt: 1, updatedAt: 1 });
export const patternRule = (value: string[], extra: object = {}) => ({
  id: "r1",
  revisions: [
    {
      revision: 1,
      name: "R",
      enabled: true,
      action: ["blockMessage"],
      createdAt: 1,
      conditions: [{ id: 1, entity: "message", operand: "text", category: "pattern", operator: "contains", isKeywordsReferencePresent: false, isMediaPresent: false, value, ...extra }],
    },
  ],
});
export const masking = (regex: unknown) => ({
  extensions: { "data-masking": { enabled: true, updatedAt: 1, settings: { customregexData: [{ id: "m1", regex: "\\d{4}" }, { id: "m2", regex }] } } },
});
const manyPatterns = Array.from({ length: 25 }, (_, i) => `[a-z]{140}${i}`);

/** Seeds whose user patterns the loader refuses (saved-state-loads.test.ts). */
export const BAD_PATTERNS = {
  backReference: {
    name: "a keyword list's pattern RE2 cannot run",
    doc: moderationSeed({ keywordLists: [keywordList(["ok", "(a)\\1"])] }),
    error: "apps[0].moderation.keywordLists[0].searchTerms[1] is not a valid RE2 pattern",
    notInSchema: "patterns",
  },
  lookahead: {
    name: "a rule condition's pattern RE2 cannot run",
    doc: moderationSeed({ rules: [patternRule(["(?=x)"])] }),
    error: "apps[0].moderation.rules[0].revisions[0].conditions[0].value[0] is not a valid RE2 pattern",
    notInSchema: "patterns",
  },
  tooLarge: {
    name: "a pattern too large",
    doc: moderationSeed({ keywordLists: [keywordList(["x{1000}"])] }),
    error: "compiles to more than",
    notInSchema: "patterns",
  },
  tooLargeTogether: {
    name: "patterns too large together",
    doc: moderationSeed({ keywordLists: [keywordList(manyPatterns)] }),
    error: "apps[0].moderation.keywordLists[0].searchTerms together compile to more than",
    notInSchema: "patterns",
  },
  lookbehindMask: {
    name: "a data-masking mask RE2 cannot run",
    doc: moderationSeed({}, masking("(?<=a)b")),
    error: "apps[0].management.extensions.data-masking.settings.customregexData[1].regex",
    notInSchema: "patterns",
  },
  emptyMask: {
    name: "a data-masking mask that matches empty text",
    doc: moderationSeed({}, masking("a*")),
    error: "may not match empty text",
    notInSchema: "patterns",
  },
  numberMask: {
    name: "a data-masking mask that is no string",
    doc: moderationSeed({}, masking(5)),
    error: "apps[0].management.extensions.data-masking.settings.customregexData[1].regex must be a string",
  },
} satisfies Record<string, RefusedDocument>;

/** A state file with a user without a name (cli.e2e.test.ts). */
export const NAMELESS_USER_STATE = {
  doc: { format: "chat-emulator/state@1", apps: [{ app: A1, users: [{ uid: "x" }] }] },
  error: "apps[0].users[0].name must be a non-empty string",
};

/** A seed file given as a data file (data-file-refusal.test.ts): the state schema wants the state format. */
export const SEED_FILE = { format: "chat-emulator/seed@1", apps: [{ app: { appId: "seeded", name: "Seeded" } }] };

/** A change that spoils a state the emulator exported; the tests of the loader make it to a state they built. */
export interface StateChange {
  name: string;
  change(state: any): void;
  error: string;
}

/**
 * Spoiled exports (control, ai-campaigns and notifications tests; state-loading.test.ts makes badSender's change in
 * the text of a large export, to go through the streaming reader).
 */
export const BAD_STATE_CHANGES = {
  badUid: { name: "a uid with a space", change: (s) => void (s.apps[0].users[2].uid = "bad uid"), error: "apps[0].users[2].uid may only contain letters, numbers and dashes" },
  campaignTime: {
    name: "a feed item sent at a time that is no number",
    change: (s) => void (s.apps[0].campaigns.items[0].sentAt = "yesterday"),
    error: "apps[0].campaigns.items[0].sentAt must be a non-negative integer (Unix seconds)",
  },
  tokenless: {
    name: "a push token without its token",
    change: (s) => void (s.apps[0].notifications.tokens = [{ uid: "superhero2" }]),
    error: "apps[0].notifications.tokens[0].pushToken must be a non-empty string",
  },
  badSender: {
    name: "a message sender with a space",
    change: (s) => void (s.apps[0].messages[1].sender = "Not Bob"),
    error: "apps[0].messages[1].sender may only contain letters, numbers and dashes",
  },
} satisfies Record<string, StateChange>;
