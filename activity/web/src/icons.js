// Small pictures drawn as SVG, for what has no picture in render/ (a computer's face, a
// child's, the buttons' signs): a child reads these, not the words under them.
const svg = (body, view = "0 0 24 24") =>
  `<svg viewBox="${view}" aria-hidden="true" fill="none" stroke="currentColor" ` +
  `stroke-width="2" stroke-linecap="round" stroke-linejoin="round">${body}</svg>`;

export const robot = svg(
  '<rect x="4" y="8" width="16" height="12" rx="3" fill="currentColor" stroke="none"/>' +
  '<circle cx="9" cy="14" r="1.8" fill="#fff" stroke="none"/>' +
  '<circle cx="15" cy="14" r="1.8" fill="#fff" stroke="none"/>' +
  '<line x1="12" y1="4" x2="12" y2="8"/><circle cx="12" cy="3.5" r="1.5" fill="currentColor"/>',
);

export const child = svg(
  '<circle cx="12" cy="8" r="4" fill="currentColor" stroke="none"/>' +
  '<path d="M5 21c0-4 3-7 7-7s7 3 7 7" fill="currentColor" stroke="none"/>',
);

export const play = svg('<path d="M7 4l13 8-13 8z" fill="currentColor"/>');
export const again = svg('<path d="M20 12a8 8 0 1 1-2.3-5.7"/><path d="M20 4v5h-5"/>');
export const swap = svg('<path d="M4 8h13l-3-3"/><path d="M20 16H7l3 3"/>');
export const sit = svg(
  '<circle cx="12" cy="6" r="3" fill="currentColor" stroke="none"/>' +
  '<path d="M12 10v6M8 13h8M9 21l3-5 3 5"/>',
);
export const plus = svg('<path d="M12 5v14M5 12h14"/>');
export const out = svg('<path d="M15 4h4v16h-4"/><path d="M10 8l-4 4 4 4M6 12h9"/>');
export const trophy = svg(
  '<path d="M7 4h10v5a5 5 0 0 1-10 0z" fill="#ffb000" stroke="#7a5200"/>' +
  '<path d="M7 6H4v2a3 3 0 0 0 3 3M17 6h3v2a3 3 0 0 1-3 3" stroke="#7a5200"/>' +
  '<path d="M12 14v4M8 21h8" stroke="#7a5200"/>',
);
