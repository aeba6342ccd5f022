import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { STATE_BODY_LIMIT } from "../src/control/routes.js";
import { JOURNAL_BODY_LIMIT } from "../src/control/journal.js";
import { DRAIN_BYTES } from "../src/http/drain.js";
import { BODY_LIMIT_BYTES, MAX_JSON_DEPTH } from "../src/http/validate.js";
import { FORM_LIMIT_BYTES } from "../src/resources/moderation/input.js";
import { USERS_PER_CALL } from "../src/resources/groups/membership.js";
import { MESSAGE_BODY_LIMIT, MESSAGE_DATA } from "../src/resources/messages/send.js";
import { HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from "../src/server.js";
import { LISTS_PER_APP } from "../src/resources/moderation/keywords.js";
import { CONDITIONS_PER_RULE, DESCRIPTION_MAX, FILTERS_PER_RULE, NAME_MAX, RULES_PER_APP } from "../src/resources/moderation/rules.js";
import { MAX_PATTERNS, MAX_SCREENING_PROGRAM } from "../src/util/safe-regex.js";
import { MAX_SCREENING_WORDS } from "../src/util/word-list.js";
import { MAX_CALL_PARTICIPANTS } from "../src/store/seed.js";
import { TOKENS_PER_USER } from "../src/resources/notifications/tokens.js";
import { MAX_CSV_BYTES, MAX_IDS_PER_CALL, MAX_RECIPIENTS } from "../src/resources/campaigns/service/campaigns.js";
import { MAX_CHANNELS_PER_TYPE, MAX_TEMPLATES } from "../src/resources/campaigns/service/catalog.js";
import { MAX_CATEGORIES } from "../src/store/campaigns.js";

/**
 * One fact, one page: the limits live in the table of docs/security-and-data-safety.md, and each figure there is the
 * constant the code uses (a limit changed in the code fails here until the table says so).
 */

const page = readFileSync(new URL("../docs/security-and-data-safety.md", import.meta.url), "utf8");
const table = page.slice(page.indexOf("## Limits"));
/** The table's row whose first cell starts with `what`. */
const row = (what: string) => {
  const line = table.split("\n").find((l) => l.startsWith(`| ${what}`));
  if (!line) throw new Error(`no row "${what}" in the limits table`);
  return line;
};

const KB = 1024;
const MB = 1024 * KB;
const human = (bytes: number) => (bytes >= 1024 * MB ? `${bytes / (1024 * MB)} GiB` : bytes >= MB ? `${bytes / MB} MB` : `${bytes / KB} KB`);

describe("the limits table holds the code's figures", () => {
  it("bodies, nesting, drains and the journal's copy", () => {
    expect(row("Request body, most platform and control operations")).toContain(human(BODY_LIMIT_BYTES));
    const larger = row("Request body, larger operations");
    expect(larger).toContain(`${human(JOURNAL_BODY_LIMIT)} push certificates and the request journal's copy`);
    expect(larger).toContain(`${human(FORM_LIMIT_BYTES)} moderation forms`);
    expect(larger).toContain(`${human(STATE_BODY_LIMIT)} \`PUT /_emulator/state\``);
    expect(row("JSON nesting")).toContain(`${MAX_JSON_DEPTH} levels`);
    expect(row("Body refused before it is read")).toContain(`declared over ${DRAIN_BYTES / MB} MiB`);
    expect(row("Message send, thread reply and edit")).toContain(`${human(MESSAGE_BODY_LIMIT)} body, of which ${MESSAGE_DATA.maxKb} KB \`data\``);
  });

  it("timeouts and users per call", () => {
    expect(row("Request headers")).toContain(`${HEADERS_TIMEOUT_MS / 1000} s to arrive`);
    expect(row("Whole request")).toContain(`${REQUEST_TIMEOUT_MS / 1000} s to arrive`);
    expect(row("Users added in one call")).toContain(`| ${USERS_PER_CALL},`);
    expect(row("Users in a call")).toContain(`| ${MAX_CALL_PARTICIPANTS},`);
    expect(row("Push tokens")).toContain(`; ${TOKENS_PER_USER} per user`);
  });

  it("moderation: the platform's limits and the screening budget", () => {
    expect(row("Moderation rules and keyword lists")).toContain(
      `${RULES_PER_APP} rules and ${LISTS_PER_APP} lists per app besides the built-in ones; ${CONDITIONS_PER_RULE} conditions and ${FILTERS_PER_RULE} filters a rule; names of ${NAME_MAX} characters, descriptions of ${DESCRIPTION_MAX}`,
    );
    expect(row("User regular expressions")).toContain(`${MAX_PATTERNS.toLocaleString("en-US")} patterns per keyword list or rule`);
    expect(row("What one app's enabled moderation rules screen with")).toContain(
      `patterns: ${MAX_SCREENING_PROGRAM} compiled instructions together; word terms: ${MAX_SCREENING_WORDS.toLocaleString("en-US")} characters together`,
    );
  });

  it("the campaigns service", () => {
    const n = (x: number) => x.toLocaleString("en-US");
    const campaigns = row("Campaigns service");
    expect(campaigns).toContain(`${n(MAX_IDS_PER_CALL)} ids per recipients call`);
    expect(campaigns).toContain(`${n(MAX_RECIPIENTS)} recipients per campaign; ${human(MAX_CSV_BYTES)} CSV file`);
    expect(campaigns).toContain(`${n(MAX_TEMPLATES)} templates, ${MAX_CATEGORIES} categories and ${MAX_CHANNELS_PER_TYPE} channels of a type`);
  });
});
