/**
 * Where the JSON Schemas of seed and state files (schemas/ in the package) are published: files the emulator
 * writes name them in `"$schema"`, so that editors complete and check them. An address, not a relative path: a
 * user's file lies anywhere (see docs/data-files.md#schemas-and-editor-completion). The loader ignores the key.
 */
export const SEED_SCHEMA_URL = "https://unpkg.com/chat-emulator/schemas/seed.schema.json";
export const STATE_SCHEMA_URL = "https://unpkg.com/chat-emulator/schemas/state.schema.json";
