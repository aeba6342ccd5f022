import { describe, expect, it } from "vitest";
import { originDevice, withOriginDevice } from "../src/http/origin.js";

// The device whose client-plane call or socket frame is running (src/http/origin.ts): its frames name it.
// The storage is on only while such a call runs (on Node 20 an enabled AsyncLocalStorage hooks every promise).

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("the origin device", () => {
  it("is seen across awaits inside a call, by each of two overlapping calls, and by nothing after them", async () => {
    let later: string | undefined = "unset";
    const a = withOriginDevice("device-a", async () => {
      await tick();
      expect(originDevice()).toBe("device-a");
      setTimeout(() => (later = originDevice()), 30); // runs after every call has ended
    });
    const b = withOriginDevice("device-b", async () => {
      await tick();
      await a; // a has ended; b is still running
      await tick();
      return originDevice();
    });
    expect(originDevice()).toBeUndefined();
    expect(await b).toBe("device-b");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(later).toBeUndefined();
  });

  it("ends a call that throws or rejects as one that answers, and runs a call without a device outside", async () => {
    expect(() => withOriginDevice("device-c", () => { throw new Error("refused"); })).toThrow("refused");
    await expect(withOriginDevice("device-c", async () => { await tick(); throw new Error("rejected"); })).rejects.toThrow("rejected");
    expect(withOriginDevice(undefined, () => originDevice())).toBeUndefined();
    expect(await withOriginDevice("device-d", async () => { await tick(); return originDevice(); })).toBe("device-d");
    expect(withOriginDevice("device-e", () => originDevice())).toBe("device-e");
    expect(originDevice()).toBeUndefined();
  });
});
