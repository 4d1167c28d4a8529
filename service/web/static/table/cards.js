// Playing cards drawn as SVG: French, Spanish and German-suited faces for the service's card codes
// (rank then suit, "QS"; "JK" a joker). Every face is built here from paths, so no image or font is fetched.
"use strict";

const Cards = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const CODE = /^([2-9TJQKA][CDHS]|JK)$/;

  // Suit symbols on a 20x20 box centred at (0, 0).
  const FRENCH = {
    H: { colour: "#c1121f", path: "M0,9 C-4,5 -10,1 -10,-4 C-10,-9 -3,-10 0,-4 C3,-10 10,-9 10,-4 C10,1 4,5 0,9Z" },
    D: { colour: "#c1121f", path: "M0,-10 L7.5,0 L0,10 L-7.5,0Z" },
    S: { colour: "#1d1d1d", path: "M0,-10 C-4,-5 -10,-1 -10,3 C-10,8 -3,8 -1,4 L-3,10 L3,10 L1,4 C3,8 10,8 10,3 C10,-1 4,-5 0,-10Z" },
    C: { colour: "#1d1d1d", circles: [[0, -5.4, 4.6], [-5, 1.6, 4.6], [5, 1.6, 4.6]], stem: "M-1.3,0 L-3.2,10 L3.2,10 L1.3,0Z" },
  };
  // Spanish suits (tomato.md): C bastos (clubs), D oros (coins), H copas (cups), S espadas (swords).
  const SPANISH = {
    D: { colour: "#b8860b", draw: (g) => { circle(g, 0, 0, 9, "#f4c430", "#8a6d0b"); circle(g, 0, 0, 4.5, "none", "#8a6d0b"); } },
    H: { colour: "#c1121f", draw: (g) => { path(g, "M-8,-8 L8,-8 C8,0 3,2 1.5,3 L1.5,6 L5,9 L-5,9 L-1.5,6 L-1.5,3 C-3,2 -8,0 -8,-8Z", "#e63946", "#8d0801"); } },
    S: { colour: "#1d3557", draw: (g) => { path(g, "M-1.2,-10 L1.2,-10 L1.4,4 L-1.4,4Z", "#a8dadc", "#1d3557");
                                          path(g, "M-6,4 L6,4 L6,6 L-6,6Z", "#e9c46a", "#1d3557");
                                          path(g, "M-1.3,6 L1.3,6 L1.3,10 L-1.3,10Z", "#6d4c41", "#1d3557"); } },
    C: { colour: "#2d6a4f", draw: (g) => { path(g, "M-2,10 L2,10 L4.5,-7 C4.5,-10.5 -4.5,-10.5 -4.5,-7Z", "#52b788", "#1b4332");
                                          circle(g, -1.5, -3, 1, "#1b4332", "none"); circle(g, 1.8, 2, 1, "#1b4332", "none"); } },
  };
  // German suits: C acorns (Eichel), S leaves (Grün), H hearts (Herz), D bells (Schellen).
  const GERMAN = {
    H: { colour: "#c1121f", draw: (g) => path(g, FRENCH.H.path, "#c1121f", "none") },
    D: { colour: "#b8860b", draw: (g) => { circle(g, 0, 1, 8, "#f4c430", "#8a6d0b"); path(g, "M-8,1 L8,1", "none", "#8a6d0b");
                                          circle(g, 0, 4.5, 1.6, "#8a6d0b", "none"); path(g, "M-1.5,-7 L1.5,-7 L1,-9 L-1,-9Z", "#8a6d0b", "#8a6d0b"); } },
    S: { colour: "#2d6a4f", draw: (g) => { path(g, "M0,-10 C8,-6 8,4 0,8 C-8,4 -8,-6 0,-10Z", "#40916c", "#1b4332");
                                          path(g, "M0,-8 L0,10", "none", "#1b4332"); } },
    C: { colour: "#7f5539", draw: (g) => { path(g, "M-5,-1 C-5,7 5,7 5,-1Z", "#b08968", "#582f0e");
                                          path(g, "M-6,-1 C-6,-7 6,-7 6,-1Z", "#7f5539", "#582f0e");
                                          path(g, "M0,-6.5 L0,-10", "none", "#582f0e"); } },
  };

  const RANK_INDEX = {
    french: { T: "10" },
    german: { T: "10", J: "U", Q: "O", A: "A" },           // Unter, Ober, Daus
    spanish: { A: "1", J: "10", Q: "11", K: "12" },          // sota, caballo, rey
  };
  const RANK_NAMES = { 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine",
                       T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" };
  const SUIT_NAMES = {
    french: { C: "clubs", D: "diamonds", H: "hearts", S: "spades" },
    german: { C: "acorns", D: "bells", H: "hearts", S: "leaves" },
    spanish: { C: "bastos", D: "oros", H: "copas", S: "espadas" },
  };
  const GERMAN_RANKS = { J: "Unter", Q: "Ober", A: "Daus" };
  const SPANISH_RANKS = { J: "sota", Q: "caballo", K: "rey", A: "as" };

  // Which faces suit a game's pack: Tomato's Spanish 40 cards; German suits for the packs without 2-6.
  const PACKS = {
    tomato: ["spanish", "french"],
    klaberjass: ["french", "german"],
    toepen: ["french", "german"],
    zwikken: ["french", "german"],
  };

  // Where the suit signs of a number card go (columns 20, 30, 40; rows 18 to 70), as on printed cards.
  const L = 20, M = 30, R = 40;
  const PIPS = {
    2: [[M, 18], [M, 70]],
    3: [[M, 18], [M, 44], [M, 70]],
    4: [[L, 18], [R, 18], [L, 70], [R, 70]],
    5: [[L, 18], [R, 18], [M, 44], [L, 70], [R, 70]],
    6: [[L, 18], [R, 18], [L, 44], [R, 44], [L, 70], [R, 70]],
    7: [[L, 18], [R, 18], [M, 31], [L, 44], [R, 44], [L, 70], [R, 70]],
    8: [[L, 18], [R, 18], [M, 31], [L, 44], [R, 44], [M, 57], [L, 70], [R, 70]],
    9: [[L, 18], [R, 18], [L, 35], [R, 35], [M, 44], [L, 53], [R, 53], [L, 70], [R, 70]],
    T: [[L, 18], [R, 18], [M, 26.5], [L, 35], [R, 35], [L, 53], [R, 53], [M, 61.5], [L, 70], [R, 70]],
  };

  function el(name, attrs, parent) {
    const node = document.createElementNS(NS, name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (parent) parent.appendChild(node);
    return node;
  }
  function path(g, d, fill, stroke) { return el("path", { d, fill, stroke, "stroke-width": 0.8 }, g); }
  function circle(g, cx, cy, r, fill, stroke) { return el("circle", { cx, cy, r, fill, stroke, "stroke-width": 0.8 }, g); }

  function drawSuit(g, faces, suit) {
    if (faces === "french") {
      const s = FRENCH[suit];
      if (s.circles) {
        for (const [cx, cy, r] of s.circles) circle(g, cx, cy, r, s.colour, "none");
        path(g, s.stem, s.colour, "none");
      } else {
        path(g, s.path, s.colour, "none");
      }
      return s.colour;
    }
    const table = faces === "spanish" ? SPANISH : GERMAN;
    table[suit].draw(g);
    return table[suit].colour;
  }

  function facesFor(game, wanted) {
    const choices = PACKS[game] || ["french"];
    return choices.includes(wanted) ? wanted : choices[0];
  }

  function name(code, faces = "french") {
    if (code === "JK") return "the joker";
    const [r, s] = code;
    const suitName = SUIT_NAMES[faces][s];
    if (faces === "spanish") return `${SPANISH_RANKS[r] || RANK_NAMES[r]} de ${suitName}`;
    if (faces === "german") return `${GERMAN_RANKS[r] || RANK_NAMES[r]} of ${suitName}`;
    return `${RANK_NAMES[r]} of ${suitName}`;
  }

  function use(g, x, y, scale, faces, suit) {
    const group = el("g", { transform: `translate(${x},${y}) scale(${scale})` }, g);
    return drawSuit(group, faces, suit);
  }

  // A face-up card: an <svg> 60x84 with the rank index in two corners and the suit in the middle.
  function face(code, faces = "french") {
    const svg = el("svg", { viewBox: "0 0 60 84", class: "card", role: "img", "data-card": code,
                            "aria-label": name(code, faces) });
    el("rect", { x: 0.5, y: 0.5, width: 59, height: 83, rx: 5, fill: "#fffdf7", stroke: "#555" }, svg);
    if (code === "JK") {
      el("path", { d: "M30,22 L35,36 L50,36 L38,45 L42,60 L30,51 L18,60 L22,45 L10,36 L25,36Z", fill: "#6a4c93" }, svg);
      const t = el("text", { x: 30, y: 76, "text-anchor": "middle", "font-size": 10, fill: "#6a4c93",
                             "font-family": "sans-serif", "font-weight": "bold" }, svg);
      t.textContent = "JOKER";
      return svg;
    }
    const [rank, suit] = code;
    const label = (RANK_INDEX[faces] && RANK_INDEX[faces][rank]) || rank;
    const pips = PIPS[rank];
    const colour = pips ? pips.map(([x, y]) => use(svg, x, y, 0.52, faces, suit))[0] : use(svg, 30, 44, 1.35, faces, suit);
    for (const [x, y, rot] of [[8, 15, 0], [52, 69, 180]]) {
      const corner = el("g", { transform: `rotate(${rot} ${x} ${y - 5})` }, svg);
      const t = el("text", { x, y, "text-anchor": "middle", "font-size": label.length > 1 ? 11 : 13,
                             "font-family": "sans-serif", "font-weight": "bold", fill: colour }, corner);
      t.textContent = label;
      use(corner, x, y + 8, 0.38, faces, suit);
    }
    if ("JQK".includes(rank)) el("rect", { x: 14, y: 22, width: 32, height: 44, rx: 3, fill: "none", stroke: colour,
                                           "stroke-width": 0.8 }, svg);
    return svg;
  }

  // A face-down card: nothing about it but that it is there.
  function back() {
    const svg = el("svg", { viewBox: "0 0 60 84", class: "card back", role: "img", "aria-label": "a face-down card" });
    el("rect", { x: 0.5, y: 0.5, width: 59, height: 83, rx: 5, fill: "#1d3557", stroke: "#555" }, svg);
    el("rect", { x: 5, y: 5, width: 50, height: 74, rx: 3, fill: "none", stroke: "#a8dadc", "stroke-dasharray": "3 2" }, svg);
    return svg;
  }

  // A suit's name on the chosen faces: "hearts", "leaves", "copas".
  function suitName(suit, faces = "french") {
    return SUIT_NAMES[faces] ? SUIT_NAMES[faces][suit] || String(suit) : String(suit);
  }

  return { face, back, name, suitName, facesFor, choices: (game) => PACKS[game] || ["french"],
           isCode: (v) => typeof v === "string" && CODE.test(v) };
})();
