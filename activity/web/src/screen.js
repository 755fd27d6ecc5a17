// What the child sees and taps: the players at the top, the board, their cards (or the
// Roll button) along the bottom, and a panel for the moments between games.
//
// The page works out no rule and reads no move's text: the server hands it this player's
// moves grouped as they are tapped (me.moves: for each card, or for the roll made, the
// move each space makes), and what they may do in a lobby. A tap on anything not offered
// does nothing. Tap a card: its spaces glow (the Dragon's: the chips it may take). Tap a
// glowing space: that space's move is sent with the turn (ply) the page showed, and the
// server says.
import * as icons from "./icons.js";

const COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "html") node.innerHTML = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) {
      node.setAttribute(key, value === true ? "" : value);
    }
  }
  for (const child of children) if (child) node.append(child);
  return node;
};

export function spaceName(index, width) {
  return `${COLUMNS[index % width]}${Math.floor(index / width) + 1}`;
}

// The spaces one group of moves glows on: space -> { action a tap there makes, takes }.
export function glowing(group) {
  const out = new Map();
  if (!group) return out;
  const takes = new Set(group.takes);
  for (const [space, action] of Object.entries(group.spaces)) {
    out.set(space, { action, takes: takes.has(space) });
  }
  return out;
}

export class Screen {
  constructor({ looks, words, send, metrics }) {
    this.looks = looks;
    this.words = words;
    this.send = send; // (message, {game}) => sent?
    this.metrics = metrics;
    this.frame = null;
    this.selected = null; // the card tapped (Kids)
    this.openChoice = { game: "kids", computers: 1 };
    this.grid = null; // the board's cells, kept while the layout is the same
    this.sentAt = null; // the ply a move was sent at (its glows are off until it is told)
    this.dice = "";
    this.node = {
      seats: document.getElementById("seats"),
      board: document.getElementById("board"),
      hand: document.getElementById("hand"),
      panel: document.getElementById("panel"),
      middle: document.getElementById("middle"),
      toast: document.getElementById("toast"),
    };
    addEventListener("resize", () => this.fit());
  }

  w(key, params = {}) {
    const text = this.words[key] || key;
    return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? params[name] : ""));
  }

  // -- frames ----------------------------------------------------------------------

  show(frame) {
    const before = this.frame;
    this.frame = frame;
    if (frame.t === "none") {
      this.selected = null;
      this.grid = null;
      this.node.seats.replaceChildren();
      this.node.board.replaceChildren();
      this.node.hand.replaceChildren();
      this.openPanel();
      return;
    }
    if (!before || before.t !== "table" || before.ply !== frame.ply
        || before.game_id !== frame.game_id) {
      this.sentAt = null;
      const me = frame.me;
      if (!me || !me.hand || !me.hand.includes(this.selected) || !me.moves) {
        this.selected = null;
      }
    }
    this.seats(frame);
    this.board(frame, before);
    this.hand(frame);
    this.panel(frame);
    this.fit();
    this.metrics.shown(frame);
  }

  refused(frame) {
    this.sentAt = null;
    this.toast(frame.text);
    this.node.board.classList.remove("shake");
    void this.node.board.offsetWidth;
    this.node.board.classList.add("shake");
  }

  toast(text) {
    if (!text) return;
    const toast = this.node.toast;
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { toast.hidden = true; }, 3500);
  }

  // -- the players -----------------------------------------------------------------

  face(seat) {
    const face = el("div", { class: "face" });
    if (seat.kind === "computer") {
      face.style.background = "#6b6f7a";
      face.innerHTML = icons.robot;
    } else {
      face.style.background = `hsl(${seat.hue} 55% ${seat.kind === "child" ? 58 : 42}%)`;
      face.textContent = seat.initial;
    }
    if (seat.colour) {
      face.append(el("img", { class: "chip-badge", alt: "", src: this.chipSrc(seat.colour) }));
    }
    return face;
  }

  // A seat's name as shown (the server names computers, in this page's language).
  nameOf(seat) {
    return seat.name;
  }

  seatNode(seat) {
    const classes = ["seat"];
    if (seat.to_move) classes.push("to-move");
    if (seat.you) classes.push("you");
    if (seat.gone) classes.push("gone");
    const name = this.nameOf(seat);
    return el("div", { class: classes.join(" "), "data-seat": seat.seat, title: name },
      this.face(seat), el("div", { class: "name" }, name));
  }

  seats(frame) {
    this.node.seats.replaceChildren(...frame.seats.map((seat) => this.seatNode(seat)));
  }

  // -- the board -------------------------------------------------------------------

  chipSrc(colour) {
    return `/.proxy/looks/chip/${colour}.png`;
  }

  board(frame, before) {
    const board = frame.board;
    if (!board) {
      this.grid = null;
      this.node.board.replaceChildren();
      return;
    }
    const key = `${frame.game_id}:${board.width}:${board.layout.join(",")}`;
    if (!this.grid || this.grid.key !== key) this.build(frame, key);
    const grid = this.grid;
    const glow = this.glows(frame);
    const line = new Set(board.line);
    const fresh = before && before.t === "table" && before.game_id === frame.game_id
      && before.ply !== frame.ply;
    grid.cells.forEach((cell, index) => {
      const name = spaceName(index, board.width);
      const side = board.chips[index];
      const colour = side === null || side === undefined ? null : board.colours[side];
      if (colour !== cell.colour) {
        cell.chip.hidden = colour === null;
        if (colour !== null) cell.chip.src = this.chipSrc(colour);
        cell.chip.classList.toggle("new", Boolean(fresh && colour && name === board.placed));
        cell.colour = colour;
      }
      const lit = glow.get(name);
      const action = lit ? lit.action : null;
      cell.button.classList.toggle("glow", Boolean(action));
      cell.button.classList.toggle("take", Boolean(lit && lit.takes));
      cell.button.classList.toggle("last", name === board.placed);
      cell.button.classList.toggle("line", line.has(name));
      cell.button.classList.toggle("removed", name === board.removed);
      cell.action = action || null;
    });
  }

  build(frame, key) {
    const board = frame.board;
    const cells = board.layout.map((picture, index) => {
      const name = spaceName(index, board.width);
      const pic = el("img", {
        class: "pic", alt: "", draggable: "false", src: `/.proxy${board.pictures[picture]}`,
      });
      const chip = el("img", { class: "chip", alt: "", draggable: "false", hidden: true });
      const button = el("button", { class: "space", "data-space": name, "aria-label": name },
        pic, chip);
      const cell = { button, pic, chip, colour: null, action: null };
      button.addEventListener("click", () => this.tapSpace(cell));
      return cell;
    });
    this.node.board.style.setProperty("--cols", board.width);
    this.node.board.style.setProperty("--rows", board.height);
    this.node.board.replaceChildren(...cells.map((c) => c.button));
    this.grid = { key, cells, width: board.width, height: board.height };
    this.metrics.built(cells.map((c) => c.pic));
  }

  glows(frame) {
    const me = frame.me;
    if (!me || !me.moves || this.sentAt === frame.ply || frame.status !== "playing") {
      return new Map();
    }
    // Kids: the card tapped lights its spaces; Dice: the roll made lights all of its own
    const first = frame.game === "kids" ? this.selected : "roll";
    return first === null ? new Map() : glowing(me.moves.groups[first]);
  }

  tapSpace(cell) {
    const frame = this.frame;
    if (!cell.action || !frame || frame.t !== "table") return; // not glowing: nothing
    this.move(cell.action);
  }

  move(action) {
    const frame = this.frame;
    const message = { t: "move", action, ply: frame.ply };
    this.metrics.tapped(frame.ply);
    this.sentAt = frame.ply;
    this.selected = null;
    this.send(message, { game: frame.game_id });
    this.show(frame);
  }

  // -- the hand --------------------------------------------------------------------

  hand(frame) {
    const hand = this.node.hand;
    const me = frame.me;
    if (frame.status !== "playing") {
      hand.replaceChildren();
      return;
    }
    if (!me) {
      hand.replaceChildren(el("div", { class: "who" }, this.w("activity.watching")));
      return;
    }
    const who = el("div", { class: "who" });
    const mover = frame.seats.find((s) => s.to_move);
    let text = "";
    let colour = me.colour;
    if (me.child) text = this.w("activity.cards_of", { name: me.name });
    else if (me.moves) text = this.w("activity.turn.you");
    else if (mover) {
      text = this.w("activity.turn.of", { name: this.nameOf(mover) });
      colour = mover.colour || colour;
    }
    who.append(el("img", { alt: "", src: this.chipSrc(colour) }), document.createTextNode(text));
    if (frame.game === "kids") hand.replaceChildren(who, this.cards(frame, me));
    else hand.replaceChildren(who, this.roll(frame, me));
  }

  cards(frame, me) {
    const lang = this.words.lang || "en";
    const dead = new Set(me.dead);
    const myTurn = Boolean(me.moves) && this.sentAt !== frame.ply;
    return el("div", { class: "cards" }, ...me.hand.map((card, position) => {
      const isDead = dead.has(card);
      const classes = ["card"];
      if (card === this.selected) classes.push("selected");
      if (!myTurn) classes.push("waiting");
      const button = el("button", {
        class: classes.join(" "), "data-card": card, "data-position": position,
        "data-dead": isDead ? "true" : null, "aria-label": card,
      }, el("img", {
        alt: "", draggable: "false",
        src: `/.proxy/looks/card/${lang}/${card}${isDead ? "-dead" : ""}.png`,
      }));
      button.addEventListener("click", () => this.tapCard(card));
      const swap = me.moves && me.moves.exchange[card];
      if (card === this.selected && isDead && myTurn && swap) {
        const offer = el("button", {
          class: "swap beckons", "data-swap": card, "aria-label": this.w("activity.exchange"),
          title: this.w("activity.exchange"), html: icons.swap,
        });
        offer.addEventListener("click", (event) => {
          event.stopPropagation();
          this.move(swap);
        });
        button.append(offer);
      }
      return button;
    }));
  }

  tapCard(card) {
    const frame = this.frame;
    const me = frame && frame.me;
    if (!me || !me.moves || this.sentAt === frame.ply) return; // not now: nothing
    if (!me.moves.groups[card] && !me.moves.exchange[card]) return; // nothing to play it on
    this.selected = this.selected === card ? null : card;
    this.show(frame);
  }

  roll(frame, me) {
    const canRoll = Boolean(me.moves && me.moves.roll) && this.sentAt !== frame.ply;
    const go = el("button", {
      class: `go${canRoll ? " can beckons" : ""}`, "data-roll": "true",
      disabled: canRoll ? null : true, "aria-label": this.w("activity.roll"),
    }, el("img", { alt: "", src: "/.proxy/looks/die/5.png" }),
    el("span", {}, this.w("activity.roll")));
    go.addEventListener("click", () => {
      if (!canRoll) return;
      this.metrics.tapped(frame.ply);
      this.sentAt = frame.ply;
      this.send({ t: "roll", ply: frame.ply }, { game: frame.game_id });
      this.show(frame);
    });
    const roll = frame.dice || null;
    const dice = el("div", { class: "dice", "data-dice": roll ? roll.join("-") : "" });
    const key = roll ? `${frame.game_id}:${frame.ply}:${roll.join("-")}` : "";
    if (roll) {
      for (const value of roll) {
        dice.append(el("img", {
          alt: String(value), src: `/.proxy/looks/die/${value}.png`,
          class: key !== this.dice ? "fresh" : null,
        }));
      }
    }
    this.dice = key;
    return el("div", { class: "roll" }, go, dice);
  }

  // -- panels: a lobby, no table, the end ------------------------------------------

  panel(frame) {
    const panel = this.node.panel;
    panel.className = "";
    if (frame.lobby) return this.lobbyPanel(frame);
    if (frame.over) return this.endPanel(frame);
    if (frame.status === "cancelled") return this.openPanel();
    panel.hidden = true;
    panel.replaceChildren();
    return null;
  }

  button(icon, label, onClick, extra = "", attrs = {}) {
    const node = el("button", { class: `big ${extra}`, "aria-label": label, ...attrs });
    node.innerHTML = icon;
    node.append(el("span", {}, label));
    node.addEventListener("click", onClick);
    return node;
  }

  lobbyPanel(frame) {
    const lobby = frame.lobby;
    const row = el("div", { class: "row" });
    if (lobby.join) {
      row.append(this.button(icons.sit, this.w("activity.lobby.join"),
        () => this.send({ t: "join" }), "go can beckons", { "data-do": "join" }));
    }
    if (lobby.add_computer) {
      row.append(this.button(icons.robot, this.w("activity.lobby.computer"),
        () => this.send({ t: "computer" }), "", { "data-do": "computer" }));
    }
    if (lobby.start) {
      row.append(this.button(icons.play, this.w("activity.lobby.start"),
        () => this.send({ t: "start" }), "go can beckons", { "data-do": "start" }));
    }
    if (lobby.leave && !lobby.cancel) { // (the host's leaving would cancel the lobby)
      row.append(this.button(icons.out, this.w("activity.lobby.leave"),
        () => this.send({ t: "leave" }), "", { "data-do": "leave" }));
    }
    const children = [el("h2", {}, this.w("activity.lobby.title")), row];
    if (!lobby.start && lobby.seated) children.push(el("p", {}, this.w("activity.lobby.wait")));
    this.open(children, "center");
  }

  endPanel(frame) {
    // (in the footer, where the cards were: the board and its shining line stay in sight)
    const over = frame.over;
    const winners = frame.seats.filter((s) => over.winners.includes(s.seat));
    let text = this.w("activity.over.stopped");
    if (over.draw) text = this.w("activity.over.draw");
    else if (winners.length) {
      text = this.w("activity.over.won", {
        names: winners.map((s) => this.nameOf(s)).join(" & "),
      });
    }
    const children = [
      el("div", { class: "winners" },
        winners.length ? el("div", { class: "trophy", html: icons.trophy }) : null,
        ...winners.map((s) => this.seatNode({ ...s, to_move: false }))),
      el("h2", { "data-over": over.draw ? "draw" : "win" }, text),
    ];
    if (over.played) {
      children.push(el("div", { class: "row" }, this.button(icons.again,
        this.w("activity.over.rematch"), () => this.send({ t: "rematch" }), "go can beckons",
        { "data-do": "rematch" })));
    }
    this.node.panel.hidden = true;
    this.node.hand.replaceChildren(el("div", { class: "end" }, ...children));
  }

  openPanel() {
    const choice = this.openChoice;
    const lang = this.words.lang || "en";
    const games = el("div", { class: "row" }, ...["kids", "dice"].map((game) => {
      const picture = game === "kids" ? "lion" : "7";
      const node = el("button", {
        class: `big${choice.game === game ? " chosen" : ""}`, "data-game": game,
        "aria-label": this.w(`game.${game}`),
      }, el("img", { alt: "", src: `/.proxy/looks/space/${lang}/${game}/${picture}.png` }),
      el("span", {}, this.w(`game.${game}`)));
      node.addEventListener("click", () => { choice.game = game; this.openPanel(); });
      return node;
    }));
    const robots = el("div", { class: "row" }, ...[1, 2, 3].map((n) => {
      const node = el("button", {
        class: `big robots${choice.computers === n ? " chosen" : ""}`, "data-computers": n,
        "aria-label": `${n}`,
      });
      node.innerHTML = icons.robot.repeat(n);
      node.addEventListener("click", () => { choice.computers = n; this.openPanel(); });
      return node;
    }));
    const go = this.button(icons.play, this.w("activity.open.go"), () => this.send({
      t: "open", game: choice.game, computers: choice.computers,
    }), "go can beckons", { "data-do": "open" });
    this.open([el("h2", {}, this.w("activity.open.title")), games,
      el("div", {}, this.w("activity.open.computers")), robots,
      el("div", { class: "row" }, go)], "center");
  }

  open(children, extra) {
    const panel = this.node.panel;
    panel.className = extra;
    panel.replaceChildren(...children);
    panel.hidden = false;
  }

  // Pictures that failed to load (the bot went away as the page opened) are asked for
  // again once it is back.
  retryPictures() {
    for (const img of document.querySelectorAll("img[src]")) {
      if (img.complete && img.naturalWidth === 0) {
        const src = img.getAttribute("src").split("?")[0];
        img.setAttribute("src", `${src}?again=${Date.now()}`);
      }
    }
  }

  // -- sizes -----------------------------------------------------------------------

  fit() {
    const landscape = innerWidth > innerHeight && innerWidth >= 700;
    const cardH = Math.round(Math.max(88, Math.min(
      landscape ? innerHeight * 0.2 : innerHeight * 0.19,
      (Math.min(innerWidth, 560) - 50) / 3 / 0.75,
    )));
    document.documentElement.style.setProperty("--card-h", `${cardH}px`);
    if (!this.grid) return;
    const box = this.node.middle.getBoundingClientRect();
    const cell = Math.floor(Math.min((box.width - 6) / this.grid.width,
      (box.height - 6) / this.grid.height));
    this.node.board.style.setProperty("--cell", `${Math.max(24, cell)}px`);
  }
}
