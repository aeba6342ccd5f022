import { beforeEach, describe, expect, it } from "vitest";
import { APP_ID, emulator, type TestEmulator } from "./helpers.js";

// The conversation list reads a per-user activity index kept current as things change; a filter that needs every
// entry (hideAgentic, with no agents: the same list) takes the full pass. Both must say the same after any mix of
// the changes that move or hide conversations.

let e: TestEmulator;
const USERS = ["u0", "u1", "u2", "u3", "u4", "u5"];
const GROUPS = ["g0", "g1"];

beforeEach(async () => {
  e = await emulator();
  e.clock.freeze(2_000_000_000_000);
  e.store.reset({ to: "empty" });
  for (const uid of USERS) await e.post("/v3/users", { uid, name: `User ${uid}` });
  for (const guid of GROUPS) await e.post("/v3/groups", { guid, name: `Group ${guid}`, type: "public", members: { participants: ["u1", "u2"] } }, { onBehalfOf: "u0" });
});

/** A small deterministic generator (the sequence is the same on every run). */
function random(seed: number) {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return { int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)], chance: (p: number) => next() < p };
}

const ids = (r: any) => r.body.data.map((c: any) => `${c.conversationId}@${c.updatedAt}:${c.lastMessage?.id ?? "-"}:${c.pinnedBy ?? ""}`);

async function expectSameAsFullPass(uid: string) {
  for (const q of ["", "conversationType=user", "conversationType=group", "includeBlockedUsers=true"])
    for (const [perPage, page] of [[100, 1], [2, 1], [2, 2], [3, 2], [2, 5]]) {
      const query = `perPage=${perPage}&page=${page}${q ? `&${q}` : ""}`;
      const indexed = await e.get(`/v3/conversations?${query}`, { onBehalfOf: uid });
      const full = await e.get(`/v3/conversations?${query}&hideAgentic=true`, { onBehalfOf: uid });
      expect(indexed.status).toBe(200);
      expect({ uid, query, list: ids(indexed), meta: indexed.body.meta }).toEqual({ uid, query, list: ids(full), meta: full.body.meta });
    }
}

describe("the conversation activity index", () => {
  it("lists as the full pass does through messages, replies, resets, deletes, memberships, pins, blocks, friends and settings", async () => {
    const r = random(25);
    const messages: number[] = [];
    for (let step = 0; step < 160; step++) {
      const x = r.pick(USERS);
      const y = r.pick(USERS.filter((u) => u !== x));
      const g = r.pick(GROUPS);
      if (r.chance(0.5)) e.clock.advance(r.int(3));
      switch (r.int(14)) {
        case 0:
        case 1:
        case 2: {
          const sent = await e.post("/v3/messages", { receiver: y, receiverType: "user", data: { text: `to ${y}` } }, { onBehalfOf: x });
          if (sent.status === 200) messages.push(Number(sent.body.data.id));
          break;
        }
        case 3: {
          const sent = await e.post("/v3/messages", { receiver: g, receiverType: "group", data: { text: `in ${g}` } }, { onBehalfOf: x });
          if (sent.status === 200) messages.push(Number(sent.body.data.id));
          break;
        }
        case 4:
          if (messages.length) await e.post(`/v3/messages/${r.pick(messages)}/thread`, { data: { text: "reply" } }, { onBehalfOf: x });
          break;
        case 5:
          await e.del(`/v3/users/${y}/conversation`, { preserveOrder: r.chance(0.5) }, { onBehalfOf: x });
          break;
        case 6:
          await e.del(`/v3/groups/${g}/conversation`, { preserveOrder: r.chance(0.5) }, { onBehalfOf: x });
          break;
        case 7:
          if (messages.length) await e.del(`/v3/messages/${r.pick(messages)}`, { permanent: r.chance(0.5) });
          break;
        case 8:
          if (r.chance(0.5)) await e.post(`/v3/groups/${g}/members`, { participants: [x] });
          else await e.del(`/v3/groups/${g}/members/${x}`);
          break;
        case 9:
          await e.post(r.chance(0.5) ? `/v3/users/${y}/conversation/pin` : `/v3/groups/${g}/conversation/pin`, {}, { onBehalfOf: x });
          if (r.chance(0.3)) await e.del(`/v3/users/${y}/conversation/pin`, undefined, { onBehalfOf: x });
          break;
        case 10:
          await e.put("/v3/conversations/pinned", { pinnedConversations: r.chance(0.5) ? [{ guid: g }, { uid: y }] : [] });
          break;
        case 11:
          if (r.chance(0.6)) await e.post(`/v3/users/${x}/blockedusers`, { blockedUids: [y] });
          else await e.del(`/v3/users/${x}/blockedusers`, { blockedUids: [y] });
          break;
        case 12:
          await e.post(`/v3/users/${x}/friends`, { accepted: [y], addToConversations: true });
          break;
        case 13:
          await e.mgmt("POST", `/apps/${APP_ID}/settings`, { settings: { "core.conversations.updateOnReplies": r.chance(0.5), "core.conversations.updateOnMessageActions": r.chance(0.5) } });
          break;
      }
      // Every few steps, every user's list (which builds or refreshes their index) against the full pass.
      if (step % 8 === 7) for (const uid of USERS) await expectSameAsFullPass(uid);
    }
  }, 60_000);
});
