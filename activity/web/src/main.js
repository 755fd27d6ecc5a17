// The Activity's page: log in through Discord, connect, and show each frame the bot sends.
import { forget, login, makeSdk, remember } from "./discord.js";
import { Link } from "./link.js";
import { Screen } from "./screen.js";

const FALLBACK = {
  "activity.connecting": "Opening the board…",
  "activity.reconnecting": "Reconnecting…",
  "activity.login_failed": "Could not tell who you are. Close the Activity and open it again.",
  "activity.not_here": "This Activity is not running in a channel the bot can see. Open it again from the channel.",
  "activity.busy": "Many people are opening the board right now. Trying again in a moment…",
  "activity.elsewhere": "This board is open on too many of your screens, so it was closed here. Close the Activity and open it again to play here.",
};

// A line over the page: something on its way (the spinner turns), or, `stuck`, something
// the page cannot mend by waiting (no spinner: nothing is coming).
function banner(text, { stuck = false } = {}) {
  const node = document.getElementById("banner");
  document.getElementById("banner-text").textContent = text || "";
  node.classList.toggle("stuck", stuck);
  node.hidden = !text;
}

function applyLooks(looks) {
  const b = looks.board;
  const vars = {
    "--paper": b.background, "--space": b.space, "--edge": b.space_edge, "--ink": b.ink,
    "--muted": b.muted, "--turn": b.turn, "--last": b.last_move,
    "--last-inner": b.last_move_inner, "--win": b.win, "--choice": b.choice,
  };
  for (const [name, value] of Object.entries(vars)) {
    document.documentElement.style.setProperty(name, value);
  }
}

async function start() {
  const config = JSON.parse(document.getElementById("config").textContent);
  applyLooks(config.looks);
  const words = { ...FALLBACK };
  const w = (key) => words[key] || key;
  banner(w("activity.connecting"));
  const { sdk } = makeSdk(config.client_id);
  // the bot said to wait (its words, in the language the browser asks for): still coming
  const waiting = (text) => banner(text || w("activity.busy"));
  let session;
  try {
    session = await login(sdk, config.client_id, { onWait: waiting });
  } catch (error) {
    banner(w("activity.login_failed"), { stuck: true });
    console.warn("login failed", error);
    return;
  }
  let notHere = null; // the bot's own words, when it said this page is not placed here
  let busy = null; // and when it said to try again in a moment
  let elsewhere = null; // and when it closed this screen for a newer one of the person's
  let screen = null;
  const link = new Link({
    session,
    instance: sdk.instanceId,
    relogin: async () => {
      forget();
      return login(sdk, config.client_id, { fresh: true, onWait: waiting });
    },
    onState: (state) => {
      if (state === "open") {
        banner("");
        busy = null;
        if (screen) screen.retryPictures();
      }
      if (state === "reconnecting") banner(busy || w("activity.reconnecting"));
      else if (state === "refused") banner(w("activity.login_failed"), { stuck: true });
      else if (state === "not_here") banner(notHere || w("activity.not_here"), { stuck: true });
      else if (state === "elsewhere") {
        banner(elsewhere || w("activity.elsewhere"), { stuck: true });
      }
    },
    onFrame: (frame) => {
      if (frame.t === "welcome") {
        Object.assign(words, frame.words, { lang: frame.lang });
        document.documentElement.lang = frame.lang === "no" ? "nb" : "en";
        remember(frame.session);
        if (!screen) screen = new Screen({ words, send: (m, o) => link.send(m, o) });
      } else if ((frame.t === "table" || frame.t === "none") && screen) {
        screen.show(frame);
      } else if (frame.t === "refused" && frame.code === "not_here") {
        notHere = frame.text || null; // (the socket closes next: the banner says it)
      } else if (frame.t === "refused" && frame.code === "busy") {
        busy = frame.text || null; // (as above; the page tries again a moment later)
      } else if (frame.t === "refused" && frame.code === "elsewhere") {
        elsewhere = frame.text || null; // (as above; this screen stops)
      } else if (frame.t === "refused" && screen) {
        screen.refused(frame);
      }
    },
  });
  link.connect();
}

start();
