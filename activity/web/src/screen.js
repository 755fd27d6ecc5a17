// The screen: the state (state.js), its drawing (draw.js) and the taps (input.js), wired
// together. A frame from the bot or a tap goes into the state; the messages it says to
// send go out; the scene it gives is drawn, region by region.
import { Drawing } from "./draw.js";
import { listen } from "./input.js";
import { initial, scene, step } from "./state.js";

export class Screen {
  constructor({ words, send }) {
    this.words = words;
    this.send = send; // (message, {game}) => sent?
    this.state = initial();
    const nodes = {
      seats: document.getElementById("seats"),
      board: document.getElementById("board"),
      hand: document.getElementById("hand"),
      panel: document.getElementById("panel"),
      middle: document.getElementById("middle"),
      toast: document.getElementById("toast"),
    };
    this.drawing = new Drawing(nodes, words.lang || "en");
    listen(nodes, (input) => this.input(input));
    addEventListener("resize", () => this.drawing.fit());
  }

  w(key, params = {}) {
    const text = this.words[key] || key;
    return text.replace(/\{(\w+)\}/g, (_, name) => (name in params ? params[name] : ""));
  }

  input(input) {
    const { state, send } = step(this.state, input);
    this.state = state;
    for (const { message, game } of send) this.send(message, { game });
    this.drawing.draw(scene(state, (key, params) => this.w(key, params)), state.toast);
  }

  show(frame) {
    this.input({ t: "frame", frame });
  }

  refused(frame) {
    this.input({ t: "refused", text: frame.text });
  }

  retryPictures() {
    this.drawing.retryPictures();
  }
}
