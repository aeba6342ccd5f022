import { describe, expect, it } from "vitest";
import { diffAnswers, IdMap, rewrite } from "../src/bridge/diff.js";

/** compare's rules, one by one (bridge.e2e.test.ts runs them end to end). */

const diff = (recorded: unknown, emulator: unknown, ids = new IdMap(), status: [number, number] = [200, 200]) =>
  diffAnswers({ status: status[0], body: recorded }, { status: status[1], body: emulator }, ids).map((d) => [d.path, d.kind]);

describe("compare's comparison", () => {
  it("compares key sets, JSON types, list lengths and the values the request determined exactly", () => {
    expect(diff({ data: { name: "A", scope: "admin", tags: ["x"] } }, { data: { name: "A", scope: "admin", tags: ["x"] } })).toEqual([]);
    expect(diff({ data: { name: "A", count: 2 } }, { data: { name: "B", count: "2", extra: 1 } })).toEqual([
      ["data.extra", "extra"],
      ["data.name", "value"],
      ["data.count", "type"],
    ]);
    expect(diff({ data: [{ uid: "a" }, { uid: "b" }] }, { data: [{ uid: "b" }] })).toEqual([
      ["data", "length"],
      ["data[0].uid", "value"],
    ]);
    expect(diff({ data: { uid: "a" }, meta: {} }, { data: { uid: "a" } })).toEqual([["meta", "missing"]]);
  });

  it("learns generated values and holds them to the emulator's from then on, in answers and in later requests", () => {
    const ids = new IdMap();
    expect(diff({ data: { id: "900", authToken: "tok-real" } }, { data: { id: "12", authToken: "tok-emu" } }, ids)).toEqual([]);
    // The same message by its id, and as another message's parent: the emulator's id is expected there.
    expect(diff({ data: { id: "900", parentId: "900" } }, { data: { id: "12", parentId: "12" } }, ids)).toEqual([]);
    expect(diff({ data: { parentId: "900" } }, { data: { parentId: "13" } }, ids)).toEqual([["data.parentId", "id"]]);
    // A number names an id only under an id key: a count of 900 stays a count.
    expect(diff({ data: { count: 900 } }, { data: { count: 900 } }, ids)).toEqual([]);
    expect(ids.rewritePath("/v3/messages/900/thread?id=900")).toBe("/v3/messages/12/thread?id=12");
    expect(rewrite({ parentId: 900, text: "900 apples", authToken: "tok-real" }, ids)).toEqual({ parentId: 12, text: "900 apples", authToken: "tok-emu" });
    // A redacted secret is a generated value wherever it stands.
    expect(diff({ data: { password: "REDACTED-0123456789abcdef" } }, { data: { password: "s3cret" } }, ids)).toEqual([]);
    expect(ids.rewriteText("REDACTED-0123456789abcdef")).toBe("s3cret");
  });

  it("compares timestamps by type and by order within a list, never by value", () => {
    expect(diff({ data: { sentAt: 1700000000, updatedAt: 1 } }, { data: { sentAt: 1800000000, updatedAt: 5 } })).toEqual([]);
    expect(diff({ data: { sentAt: 1700000000 } }, { data: { sentAt: "1700000000" } })).toEqual([["data.sentAt", "type"]]);
    const list = (...times: number[]) => ({ data: times.map((sentAt) => ({ sentAt })) });
    expect(diff(list(1, 2, 3), list(10, 10, 11))).toEqual([]);
    expect(diff(list(1, 2, 3), list(10, 12, 11))).toEqual([["data[1..2].sentAt", "order"]]);
  });

  it("reports another status as the status and the error codes, not the bodies", () => {
    const error = { error: { code: "ERR_OPERATION_FAILED", message: "The operation failed." } };
    expect(diff(error, { data: { uid: "a" } }, new IdMap(), [503, 200])).toEqual([["status", "status"], ["error.code", "value"]]);
    expect(diff(error, error, new IdMap(), [503, 503])).toEqual([]);
    const ids = new IdMap();
    ids.learn("900", "12");
    const notFound = (id: number) => ({ error: { code: "ERR_MESSAGE_ID_NOT_FOUND", message: `The message with id ${id} does not exist.` } });
    expect(diff(notFound(900), notFound(12), ids, [404, 404])).toEqual([]);
  });
});
