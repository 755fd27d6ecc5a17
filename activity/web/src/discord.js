// Who the player is, as Discord says: the Embedded App SDK inside Discord's frame, its mock
// in a plain browser (the tests, a developer against the fake Discord).
//
// Inside Discord (a frame_id in the URL): ready(), authorize() gives a one-use code, the
// server trades it for a token and a session of its own (POST /.proxy/api/token; the
// client secret stays on the server), then authenticate() with that token. Outside: the
// SDK's DiscordSDKMock, whose authorize() answers with the code the URL carries
// (mock_code: what the fake Discord's authorize gave the person), and whose channel and
// instance the URL names.
import { DiscordSDK, DiscordSDKMock } from "@discord/embedded-app-sdk";

const SESSION_KEY = "sequence-session";

export function makeSdk(clientId) {
  const params = new URLSearchParams(location.search);
  if (params.has("frame_id")) {
    return { sdk: new DiscordSDK(clientId), mock: false };
  }
  const sdk = new DiscordSDKMock(clientId, params.get("guild_id"), params.get("channel_id"),
    null);
  sdk.instanceId = params.get("instance_id") || "";
  const code = params.get("mock_code");
  sdk._updateCommandMocks({
    authorize: async () => ({ code }),
    authenticate: async ({ access_token }) => ({ access_token, user: null, scopes: [] }),
  });
  return { sdk, mock: true };
}

// The session to open the socket with: one kept from before (a reload, a reconnect), or
// a new login through Discord. `fresh`: the kept one was refused. `onWait(text)`: the bot
// said to try again later (429: many logins at once, or Discord said to wait); the code
// was not used, so the same one is sent again when it said.
export async function login(sdk, clientId, { fresh = false, onWait = () => {} } = {}) {
  const kept = !fresh && sessionStorage.getItem(SESSION_KEY);
  if (kept) return kept;
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: clientId,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: ["identify"],
  });
  if (!code) throw new Error("no code");
  const answer = await trade(code, onWait);
  if (!answer.ok) throw new Error(`login refused (${answer.status})`);
  const { access_token: accessToken, session } = await answer.json();
  // (the SDK's own login, for Discord's side; the board needs only our session, so the
  // socket opens meanwhile)
  sdk.commands.authenticate({ access_token: accessToken })
    .catch((error) => console.warn("authenticate failed", error));
  remember(session);
  return session;
}

const LONGEST_WAIT = 60; // seconds between two tries, at most (a code lasts minutes)

async function trade(code, onWait) {
  for (;;) {
    const answer = await fetch("/.proxy/api/token", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code }),
    });
    if (answer.status !== 429) return answer;
    const said = await answer.json().catch(() => ({}));
    const seconds = Number(answer.headers.get("Retry-After")) || said.retry_after || 1;
    onWait(said.text || "");
    await new Promise((resolve) => setTimeout(resolve, Math.min(seconds, LONGEST_WAIT) * 1000));
  }
}

export function remember(session) {
  try {
    sessionStorage.setItem(SESSION_KEY, session);
  } catch {
    // (a frame that may not store: the session lives in memory only)
  }
}

export function forget() {
  try {
    sessionStorage.removeItem(SESSION_KEY);
  } catch {
    // (as above)
  }
}
