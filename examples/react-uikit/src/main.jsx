import {
  CometChatConversations,
  CometChatIncomingCall,
  CometChatMessageComposer,
  CometChatMessageHeader,
  CometChatMessageList,
  CometChatProvider,
  CometChatUIKit,
  UIKitSettingsBuilder,
} from "@cometchat/chat-uikit-react";
import "@cometchat/chat-uikit-react/styles";
import { useState } from "react";
import { createRoot } from "react-dom/client";
import { APP_ID, AUTH_KEY, EMULATOR_HOST, REGION, UID } from "./emulator.js";

// The only emulator-specific lines: the kit's client and admin hosts point at the emulator (the version goes in
// the host; the SDK adds "https://"). After login the settings the emulator answers keep the SDK there, WebSocket
// included.
const settings = new UIKitSettingsBuilder()
  .setAppId(APP_ID)
  .setRegion(REGION)
  .setAuthKey(AUTH_KEY)
  .subscribePresenceForAllUsers()
  .setClientHost(`${EMULATOR_HOST}/${APP_ID}.apiclient-${REGION}/v3.0`)
  .setAdminHost(`${EMULATOR_HOST}/${APP_ID}.api-${REGION}/v3.0`)
  .build();

/** Conversations on the left; the chosen one's header, messages and composer on the right. */
function App() {
  const [chat, setChat] = useState(null);
  const open = (conversation) => {
    const withWhom = conversation.getConversationWith();
    setChat(conversation.getConversationType() === "group" ? { group: withWhom } : { user: withWhom });
  };
  return (
    <div style={{ display: "flex", height: "100vh", fontFamily: "sans-serif" }}>
      <div style={{ width: 360, borderRight: "1px solid #e8e8e8" }}>
        <CometChatConversations onItemClick={open} />
      </div>
      <div style={{ flex: 1, display: "flex", flexDirection: "column", minWidth: 0 }}>
        {chat ? (
          <>
            <CometChatMessageHeader {...chat} />
            <div style={{ flex: 1, minHeight: 0 }}>
              <CometChatMessageList {...chat} />
            </div>
            <CometChatMessageComposer {...chat} />
          </>
        ) : (
          <p style={{ margin: "auto", color: "#888" }}>Signed in as {UID}. Pick a conversation.</p>
        )}
      </div>
      <CometChatIncomingCall />
    </div>
  );
}

const root = createRoot(document.getElementById("root"));
CometChatUIKit.init(settings)
  .then(() => CometChatUIKit.getLoggedInUser() ?? CometChatUIKit.login(UID))
  .then(() =>
    root.render(
      <CometChatProvider>
        <App />
      </CometChatProvider>,
    ),
  )
  .catch((e) => {
    // Most often: the browser does not trust the emulator's certificate yet (see README.md).
    root.render(
      <p style={{ padding: 24, fontFamily: "sans-serif" }}>
        Could not reach the emulator at https://{EMULATOR_HOST}: {e?.message ?? String(e)}. Open{" "}
        <a href={`https://${EMULATOR_HOST}/_emulator/health`}>https://{EMULATOR_HOST}/_emulator/health</a>, accept the
        certificate, and reload.
      </p>,
    );
  });
