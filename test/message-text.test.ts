import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { messageText, messageView } from "../src/views/messages.js";
import { showsSame, userEntity } from "../src/views/users.js";
import { groupEntity, groupShowsSame } from "../src/views/groups.js";
import type { GroupRecord, UserRecord } from "../src/store/types.js";
import { emulator, REST_KEY, type TestEmulator } from "./helpers.js";

// A sent message's reply is written by messageText: the view's text with the sender's and receiver's entities
// spliced in from a text kept per sender (messages/view.ts). It must be, byte for byte, what JSON.stringify makes
// of the view, for any content, and show every change to either user at once.

let e: TestEmulator;
beforeEach(async () => {
  e = await emulator();
});

/** Sends as `from` and answers the reply's raw text with the stored record's view, stringified. */
async function send(from: string | undefined, body: Record<string, unknown>) {
  const headers: Record<string, string> = { apikey: REST_KEY, "content-type": "application/json" };
  if (from) headers.onBehalfOf = from;
  const res = await e.app.request("http://localhost/v3/messages", { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/json");
  const app = e.store.defaultApp;
  const m = app.messages.get(Number(JSON.parse(text).data.id))!;
  const viewer = from ? app.users.get(from) : undefined;
  return { text, expected: JSON.stringify({ data: messageView(app, m, viewer) }), entities: JSON.parse(text).data.data.entities };
}

// Strings that look like the slots messageText splices at, and other JSON-sensitive text.
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom('"data":0', '"entities":0', '\\"data\\":0', '","data":0,"', "}", "\\", "\u2028", "\ud800", "é✓"),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, tricky, fc.integer(), fc.constant(0), fc.boolean(), fc.constant(null), tie("object"), fc.array(tie("value"), { maxLength: 3 })),
  object: fc.dictionary(fc.oneof(tricky, fc.constantFrom("data", "entities", "text")), tie("value"), { maxKeys: 4 }),
})).object;

describe("a sent message's reply", () => {
  it("is the stored message's view as JSON.stringify writes it, for any content, sender and receiver", async () => {
    await e.post("/v3/users", { uid: "quiet", name: "Quiet", metadata: { entities: 0, data: 0 } });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          text: tricky.filter((t) => t.trim().length > 0),
          muid: fc.option(tricky.filter((t) => t.length <= 255), { nil: undefined }),
          metadata: fc.option(json, { nil: undefined }),
          to: fc.constantFrom(["user", "superhero2"], ["user", "quiet"], ["user", "superhero1"], ["group", "supergroup"]),
          from: fc.constantFrom("superhero1", "quiet", undefined),
        }),
        async ({ text, muid, metadata, to, from }) => {
          const data: Record<string, unknown> = { text };
          if (metadata) data.metadata = metadata;
          const body: Record<string, unknown> = { receiverType: to[0], receiver: to[1], data };
          if (muid !== undefined) body.muid = muid;
          if (from === "quiet" && to[0] === "group") return; // not a member: refused, nothing to compare
          const sent = await send(from, body);
          expect(sent.text).toBe(sent.expected);
        },
      ),
      { numRuns: 150 },
    );
  });

  it("shows a change to the sender or the receiver in the next reply", async () => {
    const app = e.store.defaultApp;
    const hello = { receiver: "superhero2", receiverType: "user", data: { text: "hello" } };
    const first = await send("superhero1", hello);
    expect(first.entities.sender.entity.name).toBe("Iron Man");

    expect((await e.put("/v3/users/superhero1", { name: "Tony", metadata: { suit: "mk85" } })).status).toBe(200);
    let next = await send("superhero1", hello);
    expect(next.text).toBe(next.expected);
    expect(next.entities.sender.entity).toMatchObject({ name: "Tony", metadata: { suit: "mk85" } });

    expect((await e.put("/v3/users/superhero2", { avatar: "https://example.com/cap.png" })).status).toBe(200);
    next = await send("superhero1", hello);
    expect(next.entities.receiver.entity).toMatchObject({ avatar: "https://example.com/cap.png", conversationId: "superhero1_user_superhero2" });

    // Presence changes the record in place, as the realtime layer does on a connection.
    app.users.get("superhero2")!.status = "available";
    next = await send("superhero1", hello);
    expect(next.entities.receiver.entity.status).toBe("available");
    expect(next.text).toBe(next.expected);

    // Another receiver, then back: each reply names its own.
    next = await send("superhero1", { ...hello, receiver: "superhero3" });
    expect(next.entities.receiver.entity.uid).toBe("superhero3");
    next = await send("superhero1", hello);
    expect(next.entities.receiver.entity.uid).toBe("superhero2");
    expect(next.text).toBe(next.expected);
  });

  it("shows a change to the receiving group in the next reply: its name, tags and member count", async () => {
    const toGroup = { receiver: "supergroup", receiverType: "group", data: { text: "team" } };
    const first = await send("superhero1", toGroup);
    const count = first.entities.receiver.entity.membersCount;
    expect((await e.put("/v3/groups/supergroup", { name: "Avengers", tags: ["hq"] })).status).toBe(200);
    let next = await send("superhero1", toGroup);
    expect(next.entities.receiver.entity).toMatchObject({ name: "Avengers", tags: ["hq"], membersCount: count });
    expect((await e.post("/v3/groups/supergroup/members", { participants: ["superhero5"] })).status).toBe(200);
    next = await send("superhero1", toGroup);
    expect(next.entities.receiver.entity.membersCount).toBe(count + 1);
    expect(next.text).toBe(next.expected);
  });

  it("names a user deleted for good and created again by the new record", async () => {
    await e.post("/v3/users", { uid: "phoenix", name: "Jean" });
    expect((await send("superhero1", { receiver: "phoenix", receiverType: "user", data: { text: "hi" } })).entities.receiver.entity.name).toBe("Jean");
    expect((await e.del("/v3/users/phoenix", { permanent: true })).status).toBe(200);
    await e.post("/v3/users", { uid: "phoenix", name: "Dark Phoenix" });
    const again = await send("superhero1", { receiver: "phoenix", receiverType: "user", data: { text: "hi" } });
    expect(again.entities.receiver.entity.name).toBe("Dark Phoenix");
    expect(again.text).toBe(again.expected);
  });
});

describe("a page of messages", () => {
  it("is each message's view in order, every one naming its users as they are now", async () => {
    const app = e.store.defaultApp;
    for (let i = 0; i < 6; i++) {
      const [from, to] = i % 2 ? ["superhero1", "superhero2"] : ["superhero2", "superhero1"];
      expect((await e.post("/v3/messages", { receiver: to, receiverType: "user", data: { text: `m${i}` } }, { onBehalfOf: from })).status).toBe(200);
    }
    const read = async () => {
      const res = await e.app.request("http://localhost/v3/messages?conversationId=superhero1_user_superhero2&limit=30", {
        headers: { apikey: REST_KEY, onBehalfOf: "superhero1" },
      });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      return { text, body: JSON.parse(text) };
    };
    const first = await read();
    const viewer = app.users.get("superhero1");
    const views = first.body.data.map((d: { id: string }) => messageView(app, app.messages.get(Number(d.id))!, viewer));
    expect(first.text).toBe(JSON.stringify({ data: views, meta: first.body.meta }));

    expect((await e.put("/v3/users/superhero2", { name: "Steve" })).status).toBe(200);
    const after = await read();
    // The seed's messages are on the page too.
    const chat = after.body.data.filter((m: { data: { text?: string } }) => /^m\d$/.test(m.data.text ?? ""));
    expect(chat).toHaveLength(6);
    for (const m of chat) {
      const { sender, receiver } = m.data.entities;
      expect((m.sender === "superhero2" ? sender : receiver).entity.name).toBe("Steve");
    }
  });
});

describe("messageText", () => {
  it("writes any message's view as JSON.stringify does: reactions, interactions, quotes, actions, groups", async () => {
    const app = e.store.defaultApp;
    const one = (await e.post("/v3/messages", { receiver: "superhero2", receiverType: "user", data: { text: "one" } }, { onBehalfOf: "superhero1" })).body.data.id;
    const quoting = (
      await e.post("/v3/messages", { receiver: "superhero1", receiverType: "user", quotedMessageId: one, data: { text: "two" } }, { onBehalfOf: "superhero2" })
    ).body.data.id;
    expect((await e.post(`/v3/messages/${one}/reactions/👍`, {}, { onBehalfOf: "superhero2" })).status).toBe(200);
    app.interactions.add("superhero1", Number(one), "button", 1_700_000_000);
    await e.post("/v3/groups/supergroup/members", { participants: ["superhero5"] });
    // A message whose receiver is no longer there (a state of an older version, which kept them), and one the app
    // itself sent. A permanent delete now takes the conversation along: the store removes the user alone.
    await e.post("/v3/users", { uid: "gone", name: "Gone" });
    const toGone = (await e.post("/v3/messages", { receiver: "gone", receiverType: "user", data: { text: "bye" } }, { onBehalfOf: "superhero1" })).body.data.id;
    app.deleteUserPermanently(app.users.get("gone")!);
    const fromApp = (await e.post("/v3/messages", { receiver: "superhero1", receiverType: "user", data: { text: "system" } })).body.data.id;
    const ids = [one, quoting, toGone, fromApp, ...app.messages.list().slice(-3).map((m) => String(m.id))];
    for (const id of ids)
      for (const viewer of [undefined, app.users.get("superhero1"), app.users.get("superhero2")]) {
        const m = app.messages.get(Number(id))!;
        expect(messageText(app, m, viewer), `message ${id} as ${viewer?.uid}`).toBe(JSON.stringify(messageView(app, m, viewer)));
      }
  });
});

describe("showsSame", () => {
  it("tells a change to any field userEntity shows", () => {
    const u: UserRecord = {
      uid: "full",
      name: "Full",
      avatar: "a",
      link: "l",
      metadata: { a: 1 },
      statusMessage: "s",
      status: "offline",
      role: "default",
      tags: [],
      createdAt: 1,
      updatedAt: 2,
      lastActiveAt: 3,
    };
    const shown = userEntity(u);
    expect(showsSame(u, shown)).toBe(true);
    for (const key of Object.keys(shown)) {
      const changed = { ...u, [key]: key === "metadata" ? { a: 1 } : `${String(u[key as keyof UserRecord])}!` } as UserRecord;
      expect(showsSame(changed, shown), key).toBe(false);
    }
  });
});

describe("groupShowsSame", () => {
  it("tells a change to any field groupEntity shows, and to the member count", () => {
    const app = e.store.defaultApp;
    const g: GroupRecord = {
      guid: "supergroup",
      name: "Full",
      type: "public",
      icon: "i",
      description: "d",
      owner: "superhero1",
      tags: ["t"],
      createdAt: 1,
      updatedAt: 2,
      updatedBy: "superhero1",
    };
    const shown = groupEntity(app, g);
    expect(groupShowsSame(app, g, shown)).toBe(true);
    for (const key of Object.keys(shown)) {
      if (key === "membersCount" || key === "conversationId") continue; // not fields of the record
      const changed = { ...g, [key]: key === "tags" ? ["t"] : `${String(g[key as keyof GroupRecord])}!` } as GroupRecord;
      expect(groupShowsSame(app, changed, shown), key).toBe(false);
    }
    expect(groupShowsSame(app, g, { ...shown, membersCount: (shown.membersCount as number) + 1 })).toBe(false);
  });
});
