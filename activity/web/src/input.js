// Taps, read from the page: each one becomes an input for state.js (`dispatch`), named by
// the data- attribute of what was tapped. Whether a tap does anything is the state's to
// say (a space that does not glow, a card with nowhere to go: nothing).
export function listen(nodes, dispatch) {
  nodes.board.addEventListener("click", (event) => {
    const space = event.target.closest("[data-space]");
    if (space) dispatch({ t: "space", space: space.dataset.space });
  });
  nodes.hand.addEventListener("click", (event) => {
    const swap = event.target.closest("[data-swap]");
    if (swap) return dispatch({ t: "swap", card: swap.dataset.swap });
    const card = event.target.closest("[data-card]");
    if (card) return dispatch({ t: "card", card: card.dataset.card });
    if (event.target.closest("[data-roll]")) return dispatch({ t: "roll" });
    return tappedDo(event, dispatch);
  });
  nodes.panel.addEventListener("click", (event) => {
    const game = event.target.closest("[data-game]");
    if (game) return dispatch({ t: "choose", choice: { game: game.dataset.game } });
    const robots = event.target.closest("[data-computers]");
    if (robots) {
      return dispatch({ t: "choose", choice: { computers: Number(robots.dataset.computers) } });
    }
    return tappedDo(event, dispatch);
  });
}

function tappedDo(event, dispatch) {
  const button = event.target.closest("[data-do]");
  if (!button) return undefined;
  const what = button.dataset.do;
  return dispatch(what === "open" ? { t: "open" } : { t: "do", what });
}
