// The page's state: what the bot last said (its frame) and what the player tapped since
// (a card chosen, a move sent and not yet told, the game to open). Frames and taps go in
// (`step`), a state and the messages to send come out; `scene` says what each region of
// the screen shows. Nothing here touches the page, so `node --test` runs it as it is
// (test/state.test.js), as chessground keeps its state apart from its drawing.
//
// No rule is worked out here and no move's text is read: the bot hands the frame the
// player's moves grouped as they are tapped (me.moves: for a card, or for the roll made,
// the move each space makes; the exchanges by card), and what they may do in a lobby.

const COLUMNS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

export function spaceName(index, width) {
  return `${COLUMNS[index % width]}${Math.floor(index / width) + 1}`;
}

export function initial() {
  return {
    frame: null, // the newest frame ("table" or "none")
    before: null, // the frame before it (to tell a new move from a redraw)
    selected: null, // the card tapped (Kids)
    sentAt: null, // the ply a move was sent at: its taps are off until the bot tells
    open: { game: "kids", computers: 1 }, // what a table opened from here will be
    toast: null, // { text, n }: a refusal to show (n counts them: each one shakes)
  };
}

const nothing = (state) => ({ state, send: [] });

// One input -> { state, send: [{ message, game }] } (game: the move's, kept by the link
// until a table shows its fate).
export function step(state, input) {
  switch (input.t) {
    case "frame": return nothing(framed(state, input.frame));
    case "refused": {
      const n = state.toast ? state.toast.n + 1 : 1;
      return nothing({ ...state, sentAt: null, toast: { text: input.text || "", n } });
    }
    case "card": return nothing(tapCard(state, input.card));
    case "space": {
      const lit = glows(state).get(input.space);
      return lit ? move(state, lit.action) : nothing(state);
    }
    case "swap": {
      const me = turnOf(state);
      const swap = me && state.selected === input.card && me.moves.exchange[input.card];
      return swap ? move(state, swap) : nothing(state);
    }
    case "roll": {
      const me = turnOf(state);
      if (!me || !me.moves.roll) return nothing(state);
      const { ply, game_id: game } = state.frame;
      return { state: { ...state, sentAt: ply }, send: [{ message: { t: "roll", ply }, game }] };
    }
    case "do": return { state, send: [{ message: { t: input.what }, game: null }] };
    case "choose": return nothing({ ...state, open: { ...state.open, ...input.choice } });
    case "open": {
      const { game, computers } = state.open;
      return { state, send: [{ message: { t: "open", game, computers }, game: null }] };
    }
    default: return nothing(state);
  }
}

function framed(state, frame) {
  const before = state.frame;
  let { selected, sentAt } = state;
  if (frame.t !== "table" || !before || before.t !== "table" || before.ply !== frame.ply
      || before.game_id !== frame.game_id) {
    sentAt = null;
    const me = frame.t === "table" ? frame.me : null;
    if (!me || !me.hand || !me.hand.includes(selected) || !me.moves) selected = null;
  }
  return { ...state, frame, before, selected, sentAt };
}

// The player's turn, if they may tap now (a move of theirs not already on its way).
function turnOf(state) {
  const frame = state.frame;
  if (!frame || frame.t !== "table" || frame.status !== "playing") return null;
  const me = frame.me;
  return me && me.moves && state.sentAt !== frame.ply ? me : null;
}

function tapCard(state, card) {
  const me = turnOf(state);
  if (!me || (!me.moves.groups[card] && !me.moves.exchange[card])) return state;
  return { ...state, selected: state.selected === card ? null : card };
}

function move(state, action) {
  const { ply, game_id: game } = state.frame;
  return {
    state: { ...state, sentAt: ply, selected: null },
    send: [{ message: { t: "move", action, ply }, game }],
  };
}

// The spaces that glow now: space -> { action a tap there makes, takes (a chip away) }.
// Kids: those of the card tapped; Dice: all of the roll made.
export function glows(state) {
  const out = new Map();
  const me = turnOf(state);
  if (!me) return out;
  const group = me.moves.groups[state.frame.game === "kids" ? state.selected : "roll"];
  if (!group) return out;
  const takes = new Set(group.takes);
  for (const [space, action] of Object.entries(group.spaces)) {
    out.set(space, { action, takes: takes.has(space) });
  }
  return out;
}

// -- what each region shows -----------------------------------------------------------

// The screen as regions of plain data (the drawing turns each into the page, and only
// when it changed); `w(key, params)`: the words in the player's language.
export function scene(state, w) {
  const frame = state.frame;
  if (!frame) return { seats: [], board: null, hand: { mode: "none" }, panel: null };
  if (frame.t === "none") {
    return { seats: [], board: null, hand: { mode: "none" }, panel: openPanel(state, w) };
  }
  return {
    seats: frame.seats.map((seat) => seatOf(seat)),
    board: boardOf(state),
    hand: handOf(state, w),
    panel: panelOf(state, w),
  };
}

function seatOf(seat) {
  return {
    seat: seat.seat, name: seat.name, kind: seat.kind, hue: seat.hue, initial: seat.initial,
    colour: seat.colour, toMove: seat.to_move, you: seat.you, gone: seat.gone,
  };
}

function boardOf(state) {
  const { frame, before } = state;
  const board = frame.board;
  if (!board) return null;
  const lit = glows(state);
  const line = new Set(board.line);
  const fresh = Boolean(before && before.t === "table" && before.game_id === frame.game_id
    && before.ply !== frame.ply);
  return {
    key: `${frame.game_id}:${board.width}:${board.layout.join(",")}`,
    width: board.width,
    height: board.height,
    cells: board.layout.map((picture, index) => {
      const space = spaceName(index, board.width);
      const side = board.chips[index];
      const colour = side === null || side === undefined ? null : board.colours[side];
      const glow = lit.get(space);
      return {
        space, picture: board.pictures[picture], colour,
        newChip: fresh && colour !== null && space === board.placed,
        glow: Boolean(glow), takes: Boolean(glow && glow.takes), last: space === board.placed,
        line: line.has(space), removed: space === board.removed,
      };
    }),
  };
}

function handOf(state, w) {
  const frame = state.frame;
  const me = frame.me;
  if (frame.over) return endOf(frame, w);
  if (frame.status !== "playing") return { mode: "none" };
  if (!me) return { mode: "watching", text: w("activity.watching") };
  const mover = frame.seats.find((s) => s.to_move);
  const mine = turnOf(state);
  let text = "";
  let colour = me.colour;
  if (me.child) text = w("activity.cards_of", { name: me.name });
  else if (me.moves) text = w("activity.turn.you");
  else if (mover) {
    text = w("activity.turn.of", { name: mover.name });
    colour = mover.colour || colour;
  }
  const who = { text, colour };
  if (frame.game !== "kids") {
    const dice = frame.dice || null;
    return {
      mode: "roll", who, can: Boolean(mine && mine.moves.roll), label: w("activity.roll"),
      dice, diceKey: dice ? `${frame.game_id}:${frame.ply}:${dice.join("-")}` : "",
    };
  }
  const dead = new Set(me.dead);
  return {
    mode: "cards", who, exchange: w("activity.exchange"),
    cards: me.hand.map((card, position) => ({
      card, position, dead: dead.has(card), selected: card === state.selected,
      waiting: !mine,
      swap: Boolean(mine && card === state.selected && dead.has(card)
        && mine.moves.exchange[card]),
    })),
  };
}

function endOf(frame, w) {
  const over = frame.over;
  const winners = frame.seats.filter((s) => over.winners.includes(s.seat));
  let text = w("activity.over.stopped");
  if (over.draw) text = w("activity.over.draw");
  else if (winners.length) {
    text = w("activity.over.won", { names: winners.map((s) => s.name).join(" & ") });
  }
  return {
    mode: "end", text, draw: over.draw, winners: winners.map((s) => seatOf({ ...s, to_move: false })),
    rematch: over.played ? w("activity.over.rematch") : null,
  };
}

function panelOf(state, w) {
  const frame = state.frame;
  if (frame.lobby) {
    const lobby = frame.lobby;
    const buttons = [];
    if (lobby.join) buttons.push({ what: "join", label: w("activity.lobby.join"), go: true });
    if (lobby.add_computer) {
      buttons.push({ what: "computer", label: w("activity.lobby.computer"), go: false });
    }
    if (lobby.start) buttons.push({ what: "start", label: w("activity.lobby.start"), go: true });
    // (the host's leaving would cancel the lobby: no "stand up" for them)
    if (lobby.leave && !lobby.cancel) {
      buttons.push({ what: "leave", label: w("activity.lobby.leave"), go: false });
    }
    return {
      mode: "lobby", title: w("activity.lobby.title"), buttons,
      wait: !lobby.start && lobby.seated ? w("activity.lobby.wait") : null,
    };
  }
  if (frame.status === "cancelled") return openPanel(state, w);
  return null;
}

function openPanel(state, w) {
  return {
    mode: "open", title: w("activity.open.title"), game: state.open.game,
    computers: state.open.computers, games: ["kids", "dice"].map((g) => ({
      game: g, label: w(`game.${g}`),
    })),
    robots: w("activity.open.computers"), go: w("activity.open.go"),
  };
}
