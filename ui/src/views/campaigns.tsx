import { useState } from "preact/hooks";
import { qs, rest } from "../api";
import { Badge, Drawer, Empty, ErrorLine, Facts, fullTime, Head, Json, shortTime } from "../components";
import { useLoad } from "../state";
import type { AppViewProps } from "./props";

/** The campaigns service of the app (docs/campaigns.md): templates, campaigns and their state, a user's feed. */

interface Template {
  id: string;
  templateId: string;
  name: string;
  status: string;
  templateCategory: string | null;
  currentVersion: number;
  channels: { channelType: string }[];
  updatedAt: number;
}

interface Campaign {
  id: string;
  name: string;
  status: string;
  template: { templateId: string; name: string } | null;
  templateVersion: number;
  scheduledAt: number | null;
  sentAt: number | null;
  recipientSummary: { total: number; pending: number; completed: number; failed: number };
  updatedAt: number;
}

interface FeedItem {
  id: string;
  templateCategory: string;
  content: Record<string, unknown>;
  sentAt: number;
  deliveredAt: number | null;
  readAt: number | null;
  campaignId?: string;
}

const TONE: Record<string, string> = { draft: "grey", approved: "green", archived: "grey", scheduled: "blue", sending: "blue", completed: "green", cancelled: "red" };

function CampaignDrawer({ app, campaign, onClose }: { app: AppViewProps["app"]; campaign: Campaign; onClose: () => void }) {
  const more = useLoad(async () => {
    const api = rest(app);
    const [metrics, analytics] = await Promise.all([api.get(`/campaigns/campaigns/${campaign.id}/sequence-metrics`), api.get(`/campaigns/analytics/campaigns/${campaign.id}`)]);
    return { metrics: metrics.data, analytics: analytics.data };
  }, [app.appId, campaign.id, campaign.updatedAt]);
  return (
    <Drawer title={campaign.name} onClose={onClose}>
      <Facts
        rows={[
          ["id", <code>{campaign.id}</code>],
          ["status", campaign.status],
          ["template", campaign.template ? `${campaign.template.name} v${campaign.templateVersion}` : "—"],
          ["scheduled", campaign.scheduledAt ? fullTime(campaign.scheduledAt) : "—"],
          ["sent", campaign.sentAt ? fullTime(campaign.sentAt) : "—"],
        ]}
      />
      <ErrorLine error={more.error} />
      <h3>Analytics</h3>
      <Json value={(more.data?.analytics as { totals?: unknown } | undefined)?.totals} />
      <h3>Steps</h3>
      <Json value={(more.data?.metrics as { steps?: unknown } | undefined)?.steps} />
    </Drawer>
  );
}

export function CampaignsView({ app }: AppViewProps) {
  const api = rest(app);
  const templates = useLoad(() => api.get<{ data: Template[] }>("/campaigns/templates?limit=100"), [app.appId]);
  const campaigns = useLoad(() => api.get<{ data: Campaign[] }>("/campaigns/campaigns?limit=100"), [app.appId]);
  const [uid, setUid] = useState("");
  const feed = useLoad(
    () => (uid.trim() ? api.get<{ data: FeedItem[] }>("/campaigns/notification-feed" + qs({ receiver: uid.trim(), limit: 100, includeExpired: true })) : Promise.resolve({ data: [] as FeedItem[] })),
    [app.appId, uid],
  );
  const [selected, setSelected] = useState<Campaign | undefined>(undefined);
  return (
    <section>
      <h1>Campaigns</h1>
      <h2>Templates</h2>
      <ErrorLine error={templates.error} />
      {templates.data && templates.data.data.length === 0 && <Empty>No templates (POST /v3/campaigns/templates).</Empty>}
      <table class="table">
        <Head columns={["Template", "Status", "Category", "Version", "Channels", "Updated"]} />
        <tbody>
          {templates.data?.data.map((t) => (
            <tr key={t.id}>
              <td>
                {t.name} <code class="small">{t.templateId}</code>
              </td>
              <td>
                <Badge tone={TONE[t.status]}>{t.status}</Badge>
              </td>
              <td>{t.templateCategory ?? "—"}</td>
              <td>v{t.currentVersion}</td>
              <td>{t.channels.map((c) => c.channelType).join(", ")}</td>
              <td title={fullTime(t.updatedAt)}>{shortTime(t.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Campaigns</h2>
      <ErrorLine error={campaigns.error} />
      {campaigns.data && campaigns.data.data.length === 0 && <Empty>No campaigns.</Empty>}
      <table class="table clickable">
        <Head columns={["Campaign", "Status", "Template", "Recipients", "Scheduled", "Sent"]} />
        <tbody>
          {campaigns.data?.data.map((c) => (
            <tr key={c.id} onClick={() => setSelected(c)}>
              <td>{c.name}</td>
              <td>
                <Badge tone={TONE[c.status]}>{c.status}</Badge>
              </td>
              <td>{c.template ? `${c.template.name} v${c.templateVersion}` : "—"}</td>
              <td>
                {c.recipientSummary.total} ({c.recipientSummary.completed} sent, {c.recipientSummary.failed} failed)
              </td>
              <td>{c.scheduledAt ? shortTime(c.scheduledAt) : "—"}</td>
              <td>{c.sentAt ? shortTime(c.sentAt) : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>A user's feed</h2>
      <input class="search" placeholder="uid" value={uid} onInput={(e) => setUid((e.target as HTMLInputElement).value)} />
      <ErrorLine error={feed.error} />
      {uid.trim() !== "" && feed.data && feed.data.data.length === 0 && <Empty>No feed items for {uid}.</Empty>}
      <table class="table">
        <Head columns={["Item", "Category", "Content", "Sent", "Delivered", "Read"]} />
        <tbody>
          {feed.data?.data.map((i) => (
            <tr key={i.id}>
              <td>
                <code class="small">{i.id}</code>
              </td>
              <td>{i.templateCategory}</td>
              <td>
                <code class="small">{JSON.stringify(i.content)}</code>
              </td>
              <td>{shortTime(i.sentAt)}</td>
              <td>{i.deliveredAt ? shortTime(i.deliveredAt) : "—"}</td>
              <td>{i.readAt ? shortTime(i.readAt) : "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {selected && <CampaignDrawer app={app} campaign={selected} onClose={() => setSelected(undefined)} />}
    </section>
  );
}
