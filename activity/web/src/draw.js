// Drawing the screen, region by region (the players, the board, the cards or the Roll
// button, a panel), from `state.scene`: each region is drawn again only when what it
// shows changed, and the board, built once per layout, changes cell by cell. Nothing
// here decides anything: taps are read by input.js, and what they do by state.js.
import * as icons from "./icons.js";

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key === "html") node.innerHTML = value;
    else if (value !== null && value !== undefined && value !== false) {
      node.setAttribute(key, value === true ? "" : value);
    }
  }
  for (const child of children) if (child) node.append(child);
  return node;
};

const chipSrc = (colour) => `/.proxy/looks/chip/${colour}.png`;

export class Drawing {
  constructor(nodes, lang) {
    this.node = nodes; // { seats, board, hand, panel, middle, toast }
    this.lang = lang;
    this.drawn = {}; // each region's scene as last drawn (JSON)
    this.grid = null; // the board's cells, kept while its layout is the same
    this.dice = ""; // the roll last shown (a new one rolls in)
    this.toastAt = 0;
  }

  draw(scene, toast) {
    this.region("seats", scene.seats, () => this.seats(scene.seats));
    this.board(scene.board);
    this.region("hand", scene.hand, () => this.hand(scene.hand));
    this.region("panel", scene.panel, () => this.panel(scene.panel));
    if (toast && toast.n !== this.toastAt) {
      this.toastAt = toast.n;
      this.refusal(toast.text);
    }
    this.fit();
  }

  // Draw a region with `paint` only if its scene changed since it was last drawn.
  region(name, part, paint) {
    const key = JSON.stringify(part);
    if (this.drawn[name] === key) return;
    this.drawn[name] = key;
    paint();
  }

  // -- the players -------------------------------------------------------------------

  face(seat) {
    const face = el("div", { class: "face" });
    if (seat.kind === "computer") {
      face.style.background = "#6b6f7a";
      face.innerHTML = icons.robot;
    } else {
      face.style.background = `hsl(${seat.hue} 55% ${seat.kind === "child" ? 58 : 42}%)`;
      face.textContent = seat.initial;
    }
    if (seat.colour) face.append(el("img", { class: "chip-badge", alt: "", src: chipSrc(seat.colour) }));
    return face;
  }

  seatNode(seat) {
    const classes = ["seat"];
    if (seat.toMove) classes.push("to-move");
    if (seat.you) classes.push("you");
    if (seat.gone) classes.push("gone");
    return el("div", { class: classes.join(" "), "data-seat": seat.seat, title: seat.name },
      this.face(seat), el("div", { class: "name" }, seat.name));
  }

  seats(seats) {
    this.node.seats.replaceChildren(...seats.map((seat) => this.seatNode(seat)));
  }

  // -- the board ---------------------------------------------------------------------

  board(board) {
    if (!board) {
      if (this.grid) this.node.board.replaceChildren();
      this.grid = null;
      return;
    }
    if (!this.grid || this.grid.key !== board.key) this.build(board);
    board.cells.forEach((cell, index) => {
      const drawn = this.grid.cells[index];
      if (cell.colour !== drawn.colour) {
        drawn.chip.hidden = cell.colour === null;
        if (cell.colour !== null) drawn.chip.src = chipSrc(cell.colour);
        drawn.colour = cell.colour;
      }
      const classes = drawn.button.classList;
      drawn.chip.classList.toggle("new", cell.newChip);
      classes.toggle("glow", cell.glow);
      classes.toggle("take", cell.takes);
      classes.toggle("last", cell.last);
      classes.toggle("line", cell.line);
      classes.toggle("removed", cell.removed);
    });
  }

  build(board) {
    const cells = board.cells.map((cell) => {
      const pic = el("img", { class: "pic", alt: "", draggable: "false", src: `/.proxy${cell.picture}` });
      const chip = el("img", { class: "chip", alt: "", draggable: "false", hidden: true });
      const button = el("button", { class: "space", "data-space": cell.space, "aria-label": cell.space },
        pic, chip);
      return { button, chip, colour: null };
    });
    this.node.board.style.setProperty("--cols", board.width);
    this.node.board.style.setProperty("--rows", board.height);
    this.node.board.replaceChildren(...cells.map((c) => c.button));
    this.grid = { key: board.key, cells, width: board.width, height: board.height };
  }

  // -- the hand, or the end ----------------------------------------------------------

  hand(hand) {
    const node = this.node.hand;
    if (hand.mode === "none") {
      node.replaceChildren();
      return;
    }
    if (hand.mode === "watching") {
      node.replaceChildren(el("div", { class: "who" }, hand.text));
      return;
    }
    if (hand.mode === "end") {
      node.replaceChildren(this.end(hand));
      return;
    }
    const who = el("div", { class: "who" }, el("img", { alt: "", src: chipSrc(hand.who.colour) }),
      document.createTextNode(hand.who.text));
    node.replaceChildren(who, hand.mode === "cards" ? this.cards(hand) : this.roll(hand));
  }

  cards(hand) {
    return el("div", { class: "cards" }, ...hand.cards.map((card) => {
      const classes = ["card"];
      if (card.selected) classes.push("selected");
      if (card.waiting) classes.push("waiting");
      const button = el("button", {
        class: classes.join(" "), "data-card": card.card, "data-position": card.position,
        "data-dead": card.dead ? "true" : null, "aria-label": card.card,
      }, el("img", {
        alt: "", draggable: "false",
        src: `/.proxy/looks/card/${this.lang}/${card.card}${card.dead ? "-dead" : ""}.png`,
      }));
      if (card.swap) {
        button.append(el("button", {
          class: "swap beckons", "data-swap": card.card, "aria-label": hand.exchange,
          title: hand.exchange, html: icons.swap,
        }));
      }
      return button;
    }));
  }

  roll(hand) {
    const go = el("button", {
      class: `go${hand.can ? " can beckons" : ""}`, "data-roll": "true",
      disabled: hand.can ? null : true, "aria-label": hand.label,
    }, el("img", { alt: "", src: "/.proxy/looks/die/5.png" }), el("span", {}, hand.label));
    const dice = el("div", { class: "dice", "data-dice": hand.dice ? hand.dice.join("-") : "" });
    for (const value of hand.dice || []) {
      dice.append(el("img", {
        alt: String(value), src: `/.proxy/looks/die/${value}.png`,
        class: hand.diceKey !== this.dice ? "fresh" : null,
      }));
    }
    this.dice = hand.diceKey;
    return el("div", { class: "roll" }, go, dice);
  }

  end(hand) {
    // (in the footer, where the cards were: the board and its shining line stay in sight)
    const children = [
      el("div", { class: "winners" },
        hand.winners.length ? el("div", { class: "trophy", html: icons.trophy }) : null,
        ...hand.winners.map((s) => this.seatNode(s))),
      el("h2", { "data-over": hand.draw ? "draw" : "win" }, hand.text),
    ];
    if (hand.rematch) {
      children.push(el("div", { class: "row" },
        this.button(icons.again, hand.rematch, "go can beckons", { "data-do": "rematch" })));
    }
    return el("div", { class: "end" }, ...children);
  }

  // -- panels: a lobby, no table -----------------------------------------------------

  button(icon, label, extra = "", attrs = {}) {
    const node = el("button", { class: `big ${extra}`, "aria-label": label, ...attrs });
    node.innerHTML = icon;
    node.append(el("span", {}, label));
    return node;
  }

  panel(panel) {
    const node = this.node.panel;
    if (!panel) {
      node.className = "";
      node.hidden = true;
      node.replaceChildren();
      return;
    }
    const children = panel.mode === "lobby" ? this.lobby(panel) : this.open(panel);
    node.className = "center";
    node.replaceChildren(...children);
    node.hidden = false;
  }

  lobby(panel) {
    const pictures = { join: icons.sit, computer: icons.robot, start: icons.play, leave: icons.out };
    const row = el("div", { class: "row" }, ...panel.buttons.map((b) => this.button(
      pictures[b.what], b.label, b.go ? "go can beckons" : "", { "data-do": b.what })));
    const children = [el("h2", {}, panel.title), row];
    if (panel.wait) children.push(el("p", {}, panel.wait));
    return children;
  }

  open(panel) {
    const games = el("div", { class: "row" }, ...panel.games.map(({ game, label }) => {
      const picture = game === "kids" ? "lion" : "7";
      return el("button", {
        class: `big${panel.game === game ? " chosen" : ""}`, "data-game": game, "aria-label": label,
      }, el("img", { alt: "", src: `/.proxy/looks/space/${this.lang}/${game}/${picture}.png` }),
      el("span", {}, label));
    }));
    const robots = el("div", { class: "row" }, ...[1, 2, 3].map((n) => el("button", {
      class: `big robots${panel.computers === n ? " chosen" : ""}`, "data-computers": n,
      "aria-label": `${n}`, html: icons.robot.repeat(n),
    })));
    const go = this.button(icons.play, panel.go, "go can beckons", { "data-do": "open" });
    return [el("h2", {}, panel.title), games, el("div", {}, panel.robots), robots,
      el("div", { class: "row" }, go)];
  }

  // -- a refusal ----------------------------------------------------------------------

  refusal(text) {
    const board = this.node.board;
    board.classList.remove("shake");
    void board.offsetWidth; // (starts the shake again)
    board.classList.add("shake");
    if (!text) return;
    const toast = this.node.toast;
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(this.toastTimer);
    this.toastTimer = setTimeout(() => { toast.hidden = true; }, 3500);
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

  // -- sizes -------------------------------------------------------------------------

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
