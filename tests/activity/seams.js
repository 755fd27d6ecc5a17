// What the tests and the benches read in the page, brought by them (Playwright's init
// script, before the page's own code): the shipped bundle has no seams of its own.
//
// window.__seq:
//   frames      table frames (and "none": no table) the page was handed and drew
//   updates     each table frame drawn: its ply and the wall clock then
//   firstBoard  when the first board was drawn with every picture decoded
//   taps        each tap on something that plays (a glowing space, Roll, a swap): the ply
//               it was made at, when, and when a newer table was drawn
//   holding     while true, frames wait (a tab left behind, a slow network), then come
//               in order on release()
(() => {
  const seq = {
    started: performance.now(), frames: 0, updates: [], firstBoard: null, taps: [],
    holding: false, held: [], ply: null,
    release() {
      this.holding = false;
      for (const deliver of this.held.splice(0)) deliver();
    },
  };
  window.__seq = seq;

  const drawn = (frame) => {
    if (frame.t === "none") seq.frames += 1;
    if (frame.t !== "table") return;
    seq.frames += 1;
    seq.ply = frame.ply;
    requestAnimationFrame(() => {
      const at = performance.now();
      seq.updates.push({ ply: frame.ply, wall: Date.now() });
      if (seq.updates.length > 1000) seq.updates.splice(0, 500);
      for (const tap of seq.taps) if (tap.drawn === null && frame.ply > tap.ply) tap.drawn = at;
      const pictures = [...document.querySelectorAll("#board img.pic")];
      if (seq.firstBoard === null && frame.board && pictures.length) {
        Promise.all(pictures.map((p) => p.decode().catch(() => null))).then(() => {
          if (seq.firstBoard === null) seq.firstBoard = performance.now();
        });
      }
    });
  };

  // Every frame passes here before the page's own handler, and after it is drawn.
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    set onmessage(handler) {
      super.onmessage = (event) => {
        const deliver = () => {
          handler.call(this, event);
          drawn(JSON.parse(event.data));
        };
        if (seq.holding) seq.held.push(deliver);
        else deliver();
      };
    }
  };

  addEventListener("click", (event) => {
    const target = event.target.closest
      && event.target.closest(".space.glow, [data-roll]:not([disabled]), [data-swap]");
    if (target && seq.ply !== null) seq.taps.push({ ply: seq.ply, at: performance.now(), drawn: null });
  }, true);
})();
