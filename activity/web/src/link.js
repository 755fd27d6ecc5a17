// The page's one connection to the bot: a WebSocket under /.proxy/ (Discord's proxy
// carries WebSockets), that comes back by itself.
//
// When it drops (the bot restarted, a process was killed, the network blinked) the page
// says it is reconnecting and tries again, sooner first, then every few seconds, with the
// same session, naming the game it showed (so a game that ended meanwhile is shown ended).
// A move sent as it dropped is sent again once it is back only if the table it gets shows
// the move was not made: the server then applies it or refuses it by its ply; it is never
// made twice.
const STEPS = [150, 300, 600, 1200, 2500, 4000];
const LOGIN_REFUSED = 4001;
const NOT_HERE = 4003;
const ELSEWHERE = 4009; // its person opened it on too many screens: this one was closed

export class Link {
  constructor({ session, instance, onFrame, onState, relogin }) {
    this.session = session;
    this.instance = instance;
    this.onFrame = onFrame;
    this.onState = onState; // "open", "reconnecting", "refused", "not_here", "elsewhere"
    this.relogin = relogin; // () => a fresh session, when the kept one is refused
    this.game = null;
    this.pending = null; // the move sent last, until a table shows it made or not
    this.tries = 0;
    this.ws = null;
    this.seen = false; // a table came on this connection
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/.proxy/ws`);
    this.ws = ws;
    this.seen = false;
    ws.onopen = () => {
      const hello = { t: "hello", session: this.session, instance: this.instance };
      if (this.game !== null) hello.game = this.game;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (event) => this.received(JSON.parse(event.data));
    ws.onclose = (event) => this.closed(ws, event.code);
  }

  received(frame) {
    if (frame.t === "welcome") {
      this.session = frame.session;
      this.tries = 0;
      this.onState("open");
    } else if (frame.t === "table") {
      this.game = frame.game_id;
      this.resendIfLost(frame);
      this.seen = true;
    }
    this.onFrame(frame);
  }

  resendIfLost(frame) {
    const move = this.pending;
    if (move === null) return;
    this.pending = null;
    if (!this.seen && frame.game_id === move.game && frame.ply === move.message.ply) {
      // the first table after a reconnect, and the move is not on it: send it again
      this.send(move.message, { game: move.game });
    }
  }

  async closed(ws, code) {
    if (ws !== this.ws) return;
    if (code === NOT_HERE) {
      this.onState("not_here"); // Discord does not place this page here: nothing to retry
      return;
    }
    if (code === ELSEWHERE) {
      // reconnecting would close another screen of the same person, which would do the same
      this.onState("elsewhere");
      return;
    }
    this.onState("reconnecting");
    if (code === LOGIN_REFUSED) {
      try {
        this.session = await this.relogin();
      } catch {
        this.onState("refused");
        return;
      }
    }
    const wait = STEPS[Math.min(this.tries, STEPS.length - 1)];
    this.tries += 1;
    setTimeout(() => this.connect(), wait);
  }

  // A move or any other message; a move is remembered until a table shows its fate.
  send(message, { game = null } = {}) {
    if (game !== null) this.pending = { game, message };
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }
}
