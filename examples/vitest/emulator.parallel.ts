import { chatEmulator } from "chat-emulator/vitest";

// Every test file gets a fresh app of its own, so files can run in parallel against one emulator. With
// CHAT_API_COVERAGE=coverage.md (or .json), the run's coverage of the chat API is written there at the end.
export default chatEmulator({ perFile: "app", coverage: process.env.CHAT_API_COVERAGE });
