import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { control, signedOut, type AppInfo, type Directory } from "./api";
import { Toasts } from "./components";
import { deliveriesStatus, requests, requestsStatus, startStreams, type StreamStatus } from "./live";
import { appHref, useRoute, type Route } from "./router";
import { clock, refreshClock, useLoad, useStore } from "./state";
import { AppsView } from "./views/apps";
import { UsersView } from "./views/users";
import { GroupsView } from "./views/groups";
import { ConversationsView } from "./views/conversations";
import { KeysView } from "./views/keys";
import { RolesView } from "./views/roles";
import { WebhooksView } from "./views/webhooks";
import { ExtensionsView } from "./views/extensions";
import { ModerationView } from "./views/moderation";
import { CampaignsView } from "./views/campaigns";
import { RequestsView } from "./views/requests";
import { DeliveriesView } from "./views/deliveries";
import { RealtimeView } from "./views/realtime";
import { NotificationsView } from "./views/notifications";
import { RulesView } from "./views/rules";
import { ControlView } from "./views/control";
import { CoverageView } from "./views/coverage";
import "./styles.css";

const APP_NAV: [string, string][] = [
  ["conversations", "Conversations"],
  ["users", "Users"],
  ["groups", "Groups"],
  ["keys", "Keys & tokens"],
  ["roles", "Roles"],
  ["webhooks", "Webhooks"],
  ["extensions", "Extensions"],
  ["moderation", "Moderation"],
  ["campaigns", "Campaigns"],
];

const EMULATOR_NAV: [string, string][] = [
  ["requests", "Requests"],
  ["coverage", "Coverage"],
  ["realtime", "Realtime"],
  ["deliveries", "Webhook deliveries"],
  ["notifications", "Notifications"],
  ["rules", "Faults & latency"],
  ["control", "Clock & snapshots"],
];

function ClockBadge() {
  const c = useStore(clock);
  const [, tick] = useState(0);
  useEffect(() => {
    const t = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(t);
  }, []);
  if (!c) return null;
  const now = c.mode === "frozen" ? c.nowMs : c.nowMs + (Date.now() - c.readAt);
  return (
    <a class={`clock ${c.mode}`} href="#/control" title="The emulator clock">
      {c.mode === "frozen" ? "Frozen · " : ""}
      {new Date(now).toLocaleString([], { dateStyle: "medium", timeStyle: "medium" })}
    </a>
  );
}

const STATUS_TEXT: Record<StreamStatus, string> = { connecting: "connecting", live: "live", reconnecting: "reconnecting", off: "off" };

function LiveDot({ label, status }: { label: string; status: StreamStatus }) {
  return (
    <span class={`live-dot ${status}`} title={`${label}: ${STATUS_TEXT[status]}`}>
      {label} {STATUS_TEXT[status]}
    </span>
  );
}

function Sidebar({ route, app }: { route: Route; app: AppInfo | undefined }) {
  const count = useStore(requests).length;
  return (
    <nav class="sidebar">
      {app && (
        <>
          <h3 class="app-name" title={`${app.name} (${app.appId})`}>{app.name}</h3>
          {APP_NAV.map(([section, label]) => (
            <a key={section} href={appHref(app.appId, section)} class={route.appId && route.section === section ? "active" : ""}>
              {label}
            </a>
          ))}
        </>
      )}
      <h3>Emulator</h3>
      <a href="#/" class={route.section === "apps" ? "active" : ""}>
        Apps
      </a>
      {EMULATOR_NAV.map(([section, label]) => (
        <a key={section} href={`#/${section}`} class={!route.appId && route.section === section ? "active" : ""}>
          {label}
          {section === "requests" && count > 0 && <span class="count">{count}</span>}
        </a>
      ))}
    </nav>
  );
}

function Main({ route, dir, app }: { route: Route; dir: Directory; app: AppInfo | undefined }) {
  if (route.appId) {
    if (!app) return <p class="empty">There is no app {route.appId} (any more). Pick one under Apps.</p>;
    const props = { app, dir, param: route.param };
    switch (route.section) {
      case "users":
        return <UsersView {...props} />;
      case "groups":
        return <GroupsView {...props} />;
      case "keys":
        return <KeysView {...props} />;
      case "roles":
        return <RolesView {...props} />;
      case "webhooks":
        return <WebhooksView {...props} />;
      case "extensions":
        return <ExtensionsView {...props} />;
      case "moderation":
        return <ModerationView {...props} />;
      case "campaigns":
        return <CampaignsView {...props} />;
      default:
        return <ConversationsView {...props} />;
    }
  }
  switch (route.section) {
    case "requests":
      return <RequestsView dir={dir} app={app} />;
    case "realtime":
      return <RealtimeView />;
    case "deliveries":
      return <DeliveriesView />;
    case "notifications":
      return <NotificationsView />;
    case "rules":
      return <RulesView dir={dir} app={app} />;
    case "control":
      return <ControlView dir={dir} app={app} />;
    case "coverage":
      return <CoverageView dir={dir} />;
    default:
      return <AppsView dir={dir} />;
  }
}

function SignedOut() {
  const [out, setOut] = useState(false);
  useEffect(() => {
    const on = () => setOut(true);
    signedOut.addEventListener("signedout", on);
    return () => signedOut.removeEventListener("signedout", on);
  }, []);
  if (!out) return null;
  return (
    <div class="signed-out" role="alert">
      The emulator no longer accepts this page's session (restarted with another control token?).{" "}
      <a href="/_emulator/ui">Sign in again</a>
    </div>
  );
}

function App() {
  const route = useRoute();
  const dir = useLoad(() => control.get<Directory>("/apps"), []);
  const [lastApp, setLastApp] = useState<string | undefined>(undefined);
  const jStatus = useStore(requestsStatus);
  const dStatus = useStore(deliveriesStatus);
  useEffect(() => {
    void startStreams();
    void refreshClock();
  }, []);
  useEffect(() => {
    if (route.appId) setLastApp(route.appId);
  }, [route.appId]);

  const d = dir.data;
  const appId = route.appId ?? lastApp ?? d?.defaultAppId ?? undefined;
  const app = d?.apps.find((a) => a.appId === appId);
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href="#/">
          chat-emulator <span>inspector</span>
        </a>
        {d && d.apps.length > 0 && (
          <select
            class="app-picker"
            aria-label="App"
            value={app?.appId ?? ""}
            onChange={(e) => (location.hash = appHref((e.target as HTMLSelectElement).value, route.appId ? route.section : "conversations"))}
          >
            {!app && <option value="">Pick an app</option>}
            {d.apps.map((a) => (
              <option key={a.appId} value={a.appId}>
                {a.name} · {a.appId} ({a.region}){a.default ? " · default" : ""}
              </option>
            ))}
          </select>
        )}
        <span class="spacer" />
        <a class="api-link" href="/_emulator/openapi.json" target="_blank" rel="noreferrer" title="The control API in OpenAPI 3.1">
          API
        </a>
        <LiveDot label="journal" status={jStatus} />
        <LiveDot label="webhooks" status={dStatus} />
        <ClockBadge />
      </header>
      <Sidebar route={route} app={app} />
      <main class="main">
        {dir.error && <p class="error-line">{dir.error.line}</p>}
        {d && <Main route={route} dir={d} app={app} />}
      </main>
      <SignedOut />
      <Toasts />
    </div>
  );
}

render(<App />, document.getElementById("root")!);
