import { chatEmulator } from "chat-emulator/vitest";

// Every test file gets a fresh app of its own, so files can run in parallel against one emulator.
export default chatEmulator({ perFile: "app" });
