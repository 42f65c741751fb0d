// svg.js — one helper to build SVG elements; the board and the dice are
// drawn with it instead of markup strings, so no text from a match (unit
// names are players' input) is ever parsed as markup.

const NS = 'http://www.w3.org/2000/svg';

export function svg(name, attrs = {}, children = []) {
  const el = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== undefined && v !== null && v !== false) el.setAttribute(k, String(v));
  }
  for (const c of children) el.append(c);
  return el;
}

// title is a tooltip child: browsers show it on hover.
export function title(text) {
  return svg('title', {}, [text]);
}
