// The test page of test/uikit.browser.test.ts: the official React UI kit, its components with their default props,
// pointed at the emulator. The test drives it through `window.harness` (log in, show a view); nothing here fixes up
// or stubs what the kit does on the network.
import { CometChat } from "@cometchat/chat-sdk-javascript";
import {
  CometChatConversations,
  CometChatGroupMembers,
  CometChatGroups,
  CometChatIncomingCall,
  CometChatMessageComposer,
  CometChatMessageHeader,
  CometChatMessageInformation,
  CometChatMessageList,
  CometChatProvider,
  CometChatReactionList,
  CometChatThreadHeader,
  CometChatUIKit,
  CometChatUsers,
  UIKitSettingsBuilder,
} from "@cometchat/chat-uikit-react";
import "@cometchat/chat-uikit-react/styles";
import type { ReactNode } from "react";
import { createRoot } from "react-dom/client";

/** What a test asks the page to show; each renders the kit's component(s) with default props for one entity. */
type View =
  | { name: "conversations" | "users" | "groups" | "incoming-call" }
  | { name: "chat"; uid?: string; guid?: string }
  | { name: "members"; guid: string }
  | { name: "thread" | "information" | "reactions"; messageId: number };

const root = createRoot(document.getElementById("root")!);

async function chat(uid?: string, guid?: string): Promise<ReactNode> {
  const entity = uid ? { user: await CometChat.getUser(uid) } : { group: await CometChat.getGroup(guid!) };
  return (
    <div style={{ display: "flex", flexDirection: "column", height: "100vh" }}>
      <CometChatMessageHeader {...entity} />
      <div style={{ flex: 1, minHeight: 0 }}>
        <CometChatMessageList {...entity} />
      </div>
      <CometChatMessageComposer {...entity} />
    </div>
  );
}

async function thread(messageId: number): Promise<ReactNode> {
  const parent = await CometChat.getMessageDetails(messageId);
  const entity =
    parent.getReceiverType() === "group"
      ? { group: await CometChat.getGroup(parent.getReceiverId()) }
      : { user: parent.getSender().getUid() === CometChatUIKit.getLoggedInUser()!.getUid() ? (parent.getReceiver() as CometChat.User) : parent.getSender() };
  return (
    <div style={{ display: "flex", flexDirection: "column", height: "100vh" }}>
      <CometChatThreadHeader parentMessage={parent} />
      <div style={{ flex: 1, minHeight: 0 }}>
        <CometChatMessageList {...entity} parentMessageId={messageId} />
      </div>
      <CometChatMessageComposer {...entity} parentMessageId={messageId} />
    </div>
  );
}

async function view(v: View): Promise<ReactNode> {
  switch (v.name) {
    case "conversations":
      return <CometChatConversations />;
    case "users":
      return <CometChatUsers />;
    case "groups":
      return <CometChatGroups />;
    case "incoming-call":
      return <CometChatIncomingCall />;
    case "chat":
      return chat(v.uid, v.guid);
    case "members":
      return <CometChatGroupMembers group={await CometChat.getGroup(v.guid)} />;
    case "thread":
      return thread(v.messageId);
    case "information":
      return <CometChatMessageInformation message={await CometChat.getMessageDetails(v.messageId)} />;
    case "reactions":
      return <CometChatReactionList message={await CometChat.getMessageDetails(v.messageId)} />;
  }
}

let shown = 0;

const harness = {
  /** Initialises the kit against the emulator at `host` (host:port, served with --https) and logs `uid` in. */
  async login(appId: string, authKey: string, host: string, uid: string): Promise<string> {
    const settings = new UIKitSettingsBuilder()
      .setAppId(appId)
      .setRegion("us")
      .setAuthKey(authKey)
      .subscribePresenceForAllUsers()
      .setClientHost(`${host}/${appId}.apiclient-us/v3.0`)
      .setAdminHost(`${host}/${appId}.api-us/v3.0`)
      .build();
    await CometChatUIKit.init(settings);
    return (await CometChatUIKit.login(uid)).getUid();
  },
  /** Replaces the page's content by `v` (mounted anew, as when a user navigates); resolves once React has it. */
  async show(v: View): Promise<void> {
    const content = await view(v);
    root.render(
      <CometChatProvider key={++shown}>
        <div style={{ height: "100vh" }} data-view={v.name}>
          {content}
        </div>
      </CometChatProvider>,
    );
  },
};

// The SDK the kit uses, for a test's other side (a caller, a reader).
Object.assign(window, { harness, CometChat });
