import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, rest, type AppInfo } from "../api";
import { Avatar, Badge, Drawer, Empty, ErrorLine, fullTime, Json, shortTime } from "../components";
import { appHref } from "../router";
import { dataChanged, toast, useLoad } from "../state";
import type { AppViewProps, Group, User } from "./props";
import { UserSelect, useUsers } from "./shared";

interface Entity {
  entity: { uid?: string; guid?: string; name?: string; id?: string; sessionid?: string; type?: string };
  entityType: string;
}

interface Message {
  id: string;
  conversationId: string;
  sender: string;
  receiverType: "user" | "group";
  receiver: string;
  category: "message" | "custom" | "action" | "call";
  type: string;
  data: {
    text?: string;
    action?: string;
    customData?: unknown;
    attachments?: { name?: string; url: string }[];
    extras?: { scope?: { new: string; old: string } };
    entities?: Record<string, Entity>;
    reactions?: { reaction: string; count: number }[];
  };
  sentAt: number;
  parentId?: string;
  replyCount?: number;
  editedAt?: number;
  deletedAt?: number;
  tags?: string[];
}

interface Conversation {
  conversationId: string;
  conversationType: "user" | "group";
  updatedAt: number;
  lastMessage?: Message;
  conversationWith: { uid?: string; guid?: string; name: string };
}

const names = (users: User[] | undefined) => new Map((users ?? []).map((u) => [u.uid, u.name]));

/** The two uids of a one-on-one conversation id ("superhero1_user_superhero2"). */
function pair(conversationId: string): [string, string] | undefined {
  const i = conversationId.indexOf("_user_");
  return i === -1 ? undefined : [conversationId.slice(0, i), conversationId.slice(i + 6)];
}

function title(c: Conversation, who: Map<string, string>): string {
  if (c.conversationType === "group") return c.conversationWith.name;
  const p = pair(c.conversationId);
  return p ? p.map((uid) => who.get(uid) ?? uid).join(" ↔ ") : c.conversationWith.name;
}

function entityName(e: Entity | undefined): string {
  if (!e) return "someone";
  return e.entity.name ?? e.entity.uid ?? e.entity.guid ?? (e.entity.id ? `message #${e.entity.id}` : e.entityType);
}

/** One line for an action message: who did what to whom. */
function actionText(m: Message): string {
  const by = entityName(m.data.entities?.by);
  const on = entityName(m.data.entities?.on);
  switch (m.data.action) {
    case "added":
      return `${by} added ${on}`;
    case "joined":
      return `${by} joined`;
    case "left":
      return `${by} left`;
    case "kicked":
      return `${by} removed ${on}`;
    case "banned":
      return `${by} banned ${on}`;
    case "unbanned":
      return `${by} unbanned ${on}`;
    case "scopeChanged":
      return `${by} made ${on} ${m.data.extras?.scope?.new ?? "a member"}`;
    case "edited":
      return `${by} edited ${on}`;
    case "deleted":
      return `${by} deleted ${on}`;
    default:
      return `${by} ${m.data.action ?? m.type} ${on}`;
  }
}

/** Mentions (`<@uid:alice>`) as people read them: "@Alice Liddell". */
function withMentions(text: string, who: Map<string, string>): string {
  return text.replace(/<@uid:([^>]+)>/g, (_, uid: string) => `@${who.get(uid) ?? uid}`);
}

function preview(m: Message | undefined, who: Map<string, string>): string {
  if (!m) return "";
  if (m.deletedAt) return "Message deleted";
  if (m.category === "action") return actionText(m);
  if (m.category === "call") return `${m.type} call ${m.data.action ?? ""}`;
  if (m.category === "custom") return `[${m.type}]`;
  return m.data.text === undefined ? `[${m.type}]` : withMentions(m.data.text, who);
}

function Thread({ app, parent, who, onOpen }: { app: AppInfo; parent: Message; who: Map<string, string>; onOpen: (m: Message) => void }) {
  const replies = useLoad(() => rest(app).list<Message>(`/messages/${parent.id}/thread?limit=100`), [app.appId, parent.id]);
  return (
    <div class="thread">
      <ErrorLine error={replies.error} />
      {replies.data?.data.map((r) => (
        <MessageItem key={r.id} app={app} m={r} who={who} onOpen={onOpen} />
      ))}
    </div>
  );
}

function MessageItem({ app, m, who, onOpen }: { app: AppInfo; m: Message; who: Map<string, string>; onOpen: (m: Message) => void }) {
  const [open, setOpen] = useState(false);
  if (m.category === "action" || m.category === "call") {
    return (
      <div class={`system ${m.category}`} data-id={m.id} onClick={() => onOpen(m)} title={fullTime(m.sentAt)}>
        {m.category === "call" ? `${entityName(m.data.entities?.by)}: ${m.type} call ${m.data.action}` : actionText(m)}
        <span class="muted"> · {shortTime(m.sentAt)}</span>
      </div>
    );
  }
  const sender = m.data.entities?.sender?.entity.name ?? who.get(m.sender) ?? m.sender;
  return (
    <div class={`message ${m.deletedAt ? "deleted" : ""}`} data-id={m.id}>
      <Avatar name={sender} size={32} />
      <div class="bubble-wrap">
        <div class="meta">
          <strong>{sender}</strong> <span class="muted">{m.sender}</span>
          <span class="muted" title={fullTime(m.sentAt)}>
            {shortTime(m.sentAt)}
          </span>
          {m.editedAt && !m.deletedAt && (
            <span class="muted" title={`edited ${fullTime(m.editedAt)}`}>
              (edited)
            </span>
          )}
          <button class="link muted" onClick={() => onOpen(m)} title="Show the message as the API returns it">
            #{m.id}
          </button>
        </div>
        <div class="bubble">
          {m.deletedAt ? (
            <em>This message was deleted ({shortTime(m.deletedAt)})</em>
          ) : m.category === "custom" ? (
            <>
              <Badge tone="purple">{m.type}</Badge>
              <Json value={m.data.customData} />
            </>
          ) : m.type === "text" ? (
            withMentions(m.data.text ?? "", who)
          ) : (
            <span>
              <Badge>{m.type}</Badge> {m.data.attachments?.map((a) => a.name ?? a.url).join(", ") ?? m.data.text}
            </span>
          )}
        </div>
        {(m.data.reactions?.length || m.tags?.length) && (
          <div class="chips">
            {m.data.reactions?.map((r) => (
              <span class="chip" key={r.reaction}>
                {r.reaction} {r.count}
              </span>
            ))}
            {m.tags?.map((t) => (
              <Badge key={t}>#{t}</Badge>
            ))}
          </div>
        )}
        {!!m.replyCount && (
          <button class="link replies" onClick={() => setOpen(!open)} aria-expanded={open}>
            {open ? "▾" : "▸"} {m.replyCount} {m.replyCount === 1 ? "reply" : "replies"}
          </button>
        )}
        {open && <Thread app={app} parent={m} who={who} onOpen={onOpen} />}
      </div>
    </div>
  );
}

/**
 * Sends a text message as any user: to the open conversation, or (without `to`) to a user or group picked here.
 */
function Composer({
  app,
  users,
  to,
  senders,
  onSent,
}: {
  app: AppInfo;
  users: User[] | undefined;
  to?: { receiverType: "user" | "group"; receiver: string | ((sender: string) => string) };
  senders?: string[];
  onSent?: (m: Message) => void;
}) {
  const [sender, setSender] = useState("");
  const [text, setText] = useState("");
  const [receiverType, setReceiverType] = useState<"user" | "group">("user");
  const [receiver, setReceiver] = useState("");
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const groups = useLoad(async () => (to ? [] : (await rest(app).list<Group>("/groups?perPage=1000")).data), [app.appId, !to]);
  // In a group only its members may send: "Send as" offers them alone.
  const guid = to ? (to.receiverType === "group" && typeof to.receiver === "string" ? to.receiver : "") : receiverType === "group" ? receiver : "";
  const members = useLoad(
    async () => (guid ? (await rest(app).list<{ uid: string }>(`/groups/${encodeURIComponent(guid)}/members?perPage=1000`)).data.map((m) => m.uid) : undefined),
    [app.appId, guid],
  );

  const send = async (e: Event) => {
    e.preventDefault();
    const target = to ? { receiverType: to.receiverType, receiver: typeof to.receiver === "string" ? to.receiver : to.receiver(sender) } : { receiverType, receiver };
    if (!sender || !target.receiver || !text.trim()) return;
    setBusy(true);
    setError(undefined);
    try {
      const reply = await rest(app).send<{ data: Message }>("POST", "/messages", { ...target, category: "message", type: "text", data: { text } }, sender);
      setText("");
      toast(`Sent message #${reply.data.id} as ${sender}`);
      dataChanged(true);
      onSent?.(reply.data);
    } catch (err) {
      const failure = err instanceof ApiError ? err : new ApiError(0, "ERROR", String(err));
      setError(failure);
      toast(failure.line, "error");
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="composer" onSubmit={send}>
      <UserSelect users={users} only={senders ?? members.data} value={sender} onChange={setSender} label="Send as" />
      {!to && (
        <>
          <select aria-label="Receiver type" value={receiverType} onChange={(e) => (setReceiverType((e.target as HTMLSelectElement).value as "user" | "group"), setReceiver(""))}>
            <option value="user">to user</option>
            <option value="group">to group</option>
          </select>
          {receiverType === "user" ? (
            <UserSelect users={users} value={receiver} onChange={setReceiver} label="Receiver" />
          ) : (
            <select aria-label="Receiver" value={receiver} onChange={(e) => setReceiver((e.target as HTMLSelectElement).value)}>
              <option value="">Receiver…</option>
              {groups.data?.map((g) => (
                <option key={g.guid} value={g.guid}>
                  {g.name} ({g.guid})
                </option>
              ))}
            </select>
          )}
        </>
      )}
      <input aria-label="Message text" placeholder="Write a message…" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      <button type="submit" disabled={busy || !sender || !text.trim()}>
        Send
      </button>
      {error && (
        <p class="error-line composer-error" role="alert">
          Not sent: {error.line}
        </p>
      )}
    </form>
  );
}

function Chat({ app, conversationId, conversation, who, users }: { app: AppInfo; conversationId: string; conversation: Conversation | undefined; who: Map<string, string>; users: User[] | undefined }) {
  const [limit, setLimit] = useState(100);
  const [shown, setShown] = useState<Message | undefined>(undefined);
  const list = useRef<HTMLDivElement>(null);
  const messages = useLoad(
    () => rest(app).list<Message>(`/messages?conversationId=${encodeURIComponent(conversationId)}&affix=prepend&hideReplies=true&limit=${limit}`),
    [app.appId, conversationId, limit],
  );
  const last = messages.data?.data.at(-1)?.id;
  useLayoutEffect(() => {
    if (list.current && limit === 100) list.current.scrollTop = list.current.scrollHeight;
  }, [last, conversationId]);
  useEffect(() => setLimit(100), [conversationId]);

  const p = pair(conversationId);
  const isGroup = !p;
  const guid = conversation?.conversationWith.guid ?? conversationId.replace(/^group_/, "");
  const to = isGroup
    ? { receiverType: "group" as const, receiver: guid }
    : { receiverType: "user" as const, receiver: (sender: string) => (sender === p[0] ? p[1] : p[0]) };
  const heading = conversation ? title(conversation, who) : isGroup ? guid : p.map((u) => who.get(u) ?? u).join(" ↔ ");
  return (
    <div class="chat">
      <header class="chat-head">
        <Avatar name={heading} size={36} />
        <div>
          <h2>{heading}</h2>
          <p class="muted small">
            <code>{conversationId}</code>
            {isGroup && (
              <>
                {" · "}
                <a href={appHref(app.appId, "groups", guid)}>members</a>
              </>
            )}
          </p>
        </div>
      </header>
      <div class="messages" ref={list}>
        <ErrorLine error={messages.error} />
        {messages.data && messages.data.data.length >= limit && (
          <button class="link load-more" onClick={() => setLimit(Math.min(limit + 200, 1000))} disabled={limit >= 1000}>
            Load earlier messages
          </button>
        )}
        {messages.data?.data.length === 0 && <Empty>No messages yet.</Empty>}
        {messages.data?.data.map((m) => (
          <MessageItem key={m.id} app={app} m={m} who={who} onOpen={setShown} />
        ))}
      </div>
      <Composer app={app} users={users} to={to} senders={p} />
      {shown && (
        <Drawer title={`Message #${shown.id}`} onClose={() => setShown(undefined)}>
          <Json value={shown} />
        </Drawer>
      )}
    </div>
  );
}

/** Conversations of the app (every user's, once each) and the open one as a chat. */
export function ConversationsView({ app, param }: AppViewProps) {
  const users = useUsers(app);
  const who = names(users.data);
  const [composing, setComposing] = useState(false);
  const conversations = useLoad(async () => {
    // Without onBehalfOf the list holds every user's conversations: keep each once, latest activity first.
    const all = (await rest(app).list<Conversation>("/conversations?perPage=1000")).data;
    const byId = new Map<string, Conversation>();
    for (const c of all) if (!byId.has(c.conversationId) || byId.get(c.conversationId)!.updatedAt < c.updatedAt) byId.set(c.conversationId, c);
    return [...byId.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  }, [app.appId]);
  const current = conversations.data?.find((c) => c.conversationId === param);
  return (
    <section class="split">
      <div class="list-pane">
        <div class="toolbar">
          <h1>Conversations</h1>
          <button class="small" onClick={() => setComposing(!composing)}>
            {composing ? "Close" : "New message"}
          </button>
        </div>
        {composing && (
          <Composer
            app={app}
            users={users.data}
            onSent={(m) => {
              setComposing(false);
              location.hash = appHref(app.appId, "conversations", m.conversationId);
            }}
          />
        )}
        <ErrorLine error={conversations.error} />
        {conversations.data?.length === 0 && <Empty>No conversations yet: send a message.</Empty>}
        {conversations.data?.map((c) => {
          const name = title(c, who);
          return (
            <a key={c.conversationId} class={`list-item ${c.conversationId === param ? "active" : ""}`} href={appHref(app.appId, "conversations", c.conversationId)} data-conversation={c.conversationId}>
              <Avatar name={name} size={34} />
              <span class="grow">
                <strong>{name}</strong>
                <span class="muted small ellipsis">{preview(c.lastMessage, who)}</span>
              </span>
              <span class="muted small">{shortTime(c.lastMessage?.sentAt ?? c.updatedAt)}</span>
            </a>
          );
        })}
      </div>
      <div class="detail-pane chat-pane">
        {param ? <Chat app={app} conversationId={param} conversation={current} who={who} users={users.data} /> : <Empty>Pick a conversation, or send a new message.</Empty>}
      </div>
    </section>
  );
}
