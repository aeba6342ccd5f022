import { useEffect, useState } from "preact/hooks";

/** Where the page is: `#/` (apps), `#/app/{appId}/{section}/{param}`, or an emulator-wide `#/{section}`. */
export interface Route {
  section: string;
  appId?: string;
  param?: string;
}

export const APP_SECTIONS = ["users", "groups", "conversations", "keys", "roles", "webhooks", "extensions", "moderation", "campaigns"] as const;
export const GLOBAL_SECTIONS = ["requests", "coverage", "realtime", "deliveries", "notifications", "rules", "control"] as const;

/** A malformed escape (`%E0%A4%A`) is kept as typed rather than leave the page blank. */
function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decode);
  if (parts[0] === "app" && parts[1]) return { appId: parts[1], section: parts[2] ?? "conversations", param: parts[3] };
  return { section: parts[0] ?? "apps", param: parts[1] };
}

export function appHref(appId: string, section: string, param?: string): string {
  return `#/app/${encodeURIComponent(appId)}/${section}${param === undefined ? "" : "/" + encodeURIComponent(param)}`;
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
