import { once } from "node:events";
import type { Writable } from "node:stream";
import { DemoGenerator, type DemoOptions } from "./generate.js";
import { STATE_SCHEMA_URL } from "../store/schemas.js";

/** What a demo holds, for the line `chat-emulator demo` prints. */
export interface DemoSummary {
  appId: string;
  restApiKey: string;
  users: number;
  groups: number;
  messages: number;
  reactions: number;
  calls: number;
  conversations: number;
}

const CHUNK = 1000;

/**
 * Writes the demo as a state file (`chat-emulator/state@1`) to `out` as it is generated: records go out in chunks,
 * waiting for the stream to drain, so memory stays flat however many messages are asked for.
 */
export async function writeDemo(out: Writable, options: DemoOptions): Promise<DemoSummary> {
  const g = new DemoGenerator(options);
  const put = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  const field = (key: string, value: unknown, first = false) => put(`${first ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(value)}`);
  /** A JSON array from batches of records, each batch serialized at once. */
  const array = async (key: string, batches: Iterable<unknown[]>) => {
    await put(`,${JSON.stringify(key)}:[`);
    let count = 0;
    for (const batch of batches)
      for (let at = 0; at < batch.length; at += CHUNK) {
        const part = JSON.stringify(batch.slice(at, at + CHUNK)).slice(1, -1);
        if (part) await put((count > 0 ? "," : "") + part);
        count += Math.min(CHUNK, batch.length - at);
      }
    await put("]");
    return count;
  };

  await put(`{"$schema":${JSON.stringify(STATE_SCHEMA_URL)},"format":"chat-emulator/state@1","apps":[{`);
  await field("app", g.app, true);
  await field("apiKeys", g.apiKeys);
  await array("users", [g.users]);
  await array("groups", [g.groups]);
  await array("friends", [g.friends]);
  const messages = await array("messages", g.messages());
  await field("lastMessageId", g.lastMessageId);
  await array("reactions", [g.reactions]);
  await field("lastReactionId", g.reactions.length);
  let conversations = 0;
  await array(
    "conversations",
    (function* () {
      for (const batch of g.conversations()) {
        conversations++;
        yield batch;
      }
    })(),
  );
  await array("calls", [g.calls]);
  await put("}]}\n");
  return {
    appId: g.app.appId,
    restApiKey: g.apiKeys[0].apiKey,
    users: g.users.length,
    groups: g.groups.length,
    messages,
    reactions: g.reactions.length,
    calls: g.calls.length,
    conversations,
  };
}
