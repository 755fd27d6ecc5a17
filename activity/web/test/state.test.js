// The page's state on its own (node --test): frames and taps in, a state and the messages
// to send out. What the bot hands the page is what the page offers; a tap on anything
// else does nothing.
import assert from "node:assert/strict";
import { test } from "node:test";

import { glows, initial, scene, spaceName, step } from "../src/state.js";

const w = (key, params = {}) => `${key}${Object.keys(params).length ? JSON.stringify(params) : ""}`;

function kidsFrame({ ply = 4, moves = null, hand = ["lion", "fox", "dragon"], dead = [] } = {}) {
  return {
    t: "table", game_id: 7, game: "kids", status: "playing", ply, host: true,
    seats: [
      { seat: 0, name: "Alice", kind: "person", hue: 10, initial: "A", colour: "red",
        you: true, to_move: true, gone: false },
      { seat: 1, name: "Computer (easy)", kind: "computer", hue: 20, initial: "C",
        colour: "blue", you: false, to_move: false, gone: false },
    ],
    turn: 0,
    board: {
      width: 2, height: 2, layout: ["lion", "fox", "free", "lion"],
      pictures: { lion: "/l.png", fox: "/f.png", free: "/x.png" },
      chips: [null, 1, null, null], colours: ["red", "blue"], placed: "B1",
      removed: null, line: [],
    },
    me: { seat: 0, name: "Alice", child: false, colour: "red", hand, dead,
      legal: [], moves, exchanges_left: 3 },
    lobby: null, over: null,
  };
}

const KIDS_MOVES = {
  roll: null,
  groups: {
    lion: { spaces: { A1: "lion@A1", B2: "lion@B2" }, takes: [] },
    dragon: { spaces: { B1: "dragon@B1" }, takes: ["B1"] },
  },
  exchange: { fox: "dead:fox" },
};

const framed = (frame) => step(initial(), { t: "frame", frame }).state;

test("spaces are named by column letter and row number, A1 top left", () => {
  assert.equal(spaceName(0, 6), "A1");
  assert.equal(spaceName(13, 6), "B3");
});

test("a card tapped lights the spaces the bot handed for it, and only those", () => {
  let state = framed(kidsFrame({ moves: KIDS_MOVES }));
  assert.equal(glows(state).size, 0, "nothing glows before a card is tapped");
  state = step(state, { t: "card", card: "lion" }).state;
  assert.deepEqual([...glows(state).keys()].sort(), ["A1", "B2"]);
  state = step(state, { t: "card", card: "dragon" }).state;
  assert.deepEqual([...glows(state).entries()], [["B1", { action: "dragon@B1", takes: true }]]);
});

test("a glowing space sends its move with the ply shown, once", () => {
  let state = step(framed(kidsFrame({ moves: KIDS_MOVES })), { t: "card", card: "lion" }).state;
  const tapped = step(state, { t: "space", space: "B2" });
  assert.deepEqual(tapped.send, [{ message: { t: "move", action: "lion@B2", ply: 4 }, game: 7 }]);
  state = tapped.state;
  assert.equal(glows(state).size, 0, "the move is on its way: nothing glows");
  assert.deepEqual(step(state, { t: "space", space: "A1" }).send, [], "no second move");
  assert.deepEqual(step(state, { t: "card", card: "lion" }).state.selected, null);
});

test("taps that must do nothing do nothing", () => {
  const state = framed(kidsFrame({ moves: KIDS_MOVES }));
  assert.deepEqual(step(state, { t: "space", space: "A1" }).send, [], "a space that does not glow");
  assert.equal(step(state, { t: "card", card: "wolf" }).state.selected, null, "not a card offered");
  const waiting = framed(kidsFrame({ moves: null }));
  assert.equal(step(waiting, { t: "card", card: "lion" }).state.selected, null, "not their turn");
  assert.deepEqual(step(waiting, { t: "roll" }).send, []);
});

test("a dead card tapped offers its exchange, which sends the bot's own move", () => {
  let state = framed(kidsFrame({ moves: KIDS_MOVES, dead: ["fox"] }));
  state = step(state, { t: "card", card: "fox" }).state;
  const fox = scene(state, w).hand.cards.find((c) => c.card === "fox");
  assert.ok(fox.dead && fox.swap, "the swap is offered on the dead card");
  assert.deepEqual(step(state, { t: "swap", card: "fox" }).send,
    [{ message: { t: "move", action: "dead:fox", ply: 4 }, game: 7 }]);
});

test("a new frame at a newer ply takes the taps back", () => {
  let state = step(framed(kidsFrame({ moves: KIDS_MOVES })), { t: "card", card: "lion" }).state;
  state = step(state, { t: "space", space: "A1" }).state;
  state = step(state, { t: "frame", frame: kidsFrame({ ply: 5, moves: KIDS_MOVES }) }).state;
  assert.equal(state.sentAt, null);
  assert.equal(state.selected, null);
  const cells = scene(state, w).board.cells;
  assert.deepEqual(cells.filter((c) => c.newChip).map((c) => c.space), ["B1"],
    "the chip just placed drops in");
  const again = step(state, { t: "frame", frame: kidsFrame({ ply: 5, moves: KIDS_MOVES }) });
  assert.deepEqual(scene(again.state, w).board.cells.filter((c) => c.newChip), [],
    "the same moment drawn again drops nothing in");
});

test("a refusal puts the taps back and says why, once each", () => {
  let state = step(framed(kidsFrame({ moves: KIDS_MOVES })), { t: "card", card: "lion" }).state;
  state = step(state, { t: "space", space: "A1" }).state;
  state = step(state, { t: "refused", text: "Too late" }).state;
  assert.equal(state.sentAt, null);
  assert.deepEqual(state.toast, { text: "Too late", n: 1 });
  assert.equal(step(state, { t: "refused", text: "" }).state.toast.n, 2);
});

test("in Dice the roll comes first, then every space of the roll glows", () => {
  const dice = { ...kidsFrame(), game: "dice", me: { seat: 0, name: "Alice", child: false,
    colour: "red", legal: [], moves: { roll: "roll", groups: {}, exchange: {} } } };
  let state = framed(dice);
  assert.equal(scene(state, w).hand.can, true);
  const rolled = step(state, { t: "roll" });
  assert.deepEqual(rolled.send, [{ message: { t: "roll", ply: 4 }, game: 7 }]);
  state = step(rolled.state, { t: "frame", frame: { ...dice, ply: 5, me: { ...dice.me,
    moves: { roll: null, groups: { roll: { spaces: { A1: "place@A1" }, takes: [] } },
      exchange: {} } } } }).state;
  assert.deepEqual([...glows(state).keys()], ["A1"]);
});

test("the lobby shows what the bot says the person may do", () => {
  const lobby = { ...kidsFrame(), status: "lobby", board: null, me: null,
    lobby: { seated: true, join: false, add_computer: true, start: false, leave: true,
      cancel: false } };
  const panel = scene(framed(lobby), w).panel;
  assert.deepEqual(panel.buttons.map((b) => b.what), ["computer", "leave"]);
  assert.equal(panel.wait, "activity.lobby.wait");
  const host = { ...lobby, lobby: { ...lobby.lobby, start: true, cancel: true } };
  assert.deepEqual(scene(framed(host), w).panel.buttons.map((b) => b.what),
    ["computer", "start"], "the host's leaving would cancel: no stand up for them");
  assert.deepEqual(step(framed(host), { t: "do", what: "start" }).send,
    [{ message: { t: "start" }, game: null }]);
});

test("a channel with no table offers to open one with the choices made", () => {
  let state = framed({ t: "none", channel_id: "5" });
  state = step(state, { t: "choose", choice: { game: "dice" } }).state;
  state = step(state, { t: "choose", choice: { computers: 2 } }).state;
  assert.equal(scene(state, w).panel.mode, "open");
  assert.deepEqual(step(state, { t: "open" }).send,
    [{ message: { t: "open", game: "dice", computers: 2 }, game: null }]);
});
