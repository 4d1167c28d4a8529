// Draws one moment of a table from what the service shows: a seat's or a spectator's view (live), or a
// whole state (replay). The seats sit around the table, the trick lies in the middle in front of the seats
// that played it, and each game's own facts (facts.js) are written the way its players say them: names, not
// seat numbers; words, not state keys.
"use strict";

const TableView = (() => {
  function h(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      // Styles through the CSSOM: the pages' Content-Security-Policy refuses style attributes.
      else if (k === "style") for (const [prop, x] of Object.entries(v)) node.style.setProperty(prop, x);
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return node;
  }

  // A seat as people call it: the name given in ?names=, else "Seat 2".
  function seatName(ctx, seat) {
    if (seat === null || seat === undefined) return "nobody";
    const given = ctx.names[seat];
    return given || `Seat ${seat}`;
  }

  function cardRow(cards, faces, cls = "cards") {
    return h("div", { class: cls }, cards.map((c) => Cards.isCode(c) ? Cards.face(c, faces) : Cards.back()));
  }

  function clockText(ms) {
    const total = Math.max(0, Math.ceil(ms / 1000));
    return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
  }

  // A seat's clock: its bank (when the time control has one) and, while it runs, the time left for this move
  // (its deadline: the bank, or the move limit when that comes first). Both count down on the page between
  // two answers, from the service's numbers at the time it answered.
  function clockPanel(control, clock) {
    const parts = [];
    if (clock.remaining_ms !== null && clock.remaining_ms !== undefined) {
      parts.push(h("span", { class: "bank", "data-ms": clock.remaining_ms, "data-runs": clock.running ? "yes" : "no",
                             title: "time left in the bank" }, clockText(clock.remaining_ms)));
    }
    if (clock.running && clock.deadline_ms) {
      const left = clock.deadline_ms - control.server_time_ms;
      parts.push(h("span", { class: "deadline", "data-ms": left, "data-runs": "yes", title: "time left for this move" },
                   clockText(left)));
    }
    return h("div", { class: `clock${clock.running ? " running" : ""}` }, parts);
  }

  // Where seat `seat` sits, as a fraction of the table's width and height: the page's own seat (or seat 0 for
  // a spectator) at the bottom, the next seats clockwise, that is to its left, as at a real table.
  function place(ctx, seat, radius) {
    const n = ctx.players;
    const bottom = ctx.mySeat === null || ctx.mySeat === undefined ? 0 : ctx.mySeat;
    const angle = Math.PI / 2 + (((seat - bottom + n) % n) * 2 * Math.PI) / n;
    return { x: 50 + radius.x * Math.cos(angle), y: 50 + radius.y * Math.sin(angle) };
  }

  function seatPanel(ctx, answer, seat) {
    const view = answer.view;
    const toAct = (answer.to_act || []).includes(seat);
    const clock = answer.clock && (answer.clock.seats || []).find((c) => c.seat === seat);
    const presence = (answer.presence || []).find((p) => p.seat === seat);
    const size = view.hand_sizes ? view.hand_sizes[seat] : null;
    const hand = view.hands && Array.isArray(view.hands[seat]) && seat !== ctx.mySeat ? view.hands[seat] : null;
    const badges = [
      seat === ctx.mySeat ? h("span", { class: "badge you" }, "you") : null,
      view.dealer === seat ? h("span", { class: "badge", title: "the dealer" }, "dealer") : null,
      toAct ? h("span", { class: "badge act" }, seat === ctx.mySeat ? "your turn" : "to act") : null,
      presence ? h("span", { class: `presence ${presence.connected ? "on" : "off"}`,
                             title: presence.connected ? "connected" : "not connected" }) : null,
    ];
    const line = Facts.seatLine(ctx, view, seat);
    const at = place(ctx, seat, { x: 36, y: 37 });
    return h("div", { class: `seat${toAct ? " acting" : ""}${view.turn === seat ? " turn" : ""}`, "data-seat": seat,
                      style: { left: `${at.x.toFixed(1)}%`, top: `${at.y.toFixed(1)}%` } },
      h("div", { class: "seat-name" }, seatName(ctx, seat)), h("div", { class: "badges" }, badges),
      clock ? clockPanel(answer.clock, clock) : null,
      hand ? cardRow(hand, ctx.faces, "cards tiny")
           : size !== null && size !== undefined && seat !== ctx.mySeat
             ? h("div", { class: "backs", title: `${size} cards` },
                 Array.from({ length: Math.min(size, 6) }, () => Cards.back()),
                 h("span", { class: "count" }, size === 1 ? "1 card" : `${size} cards`))
             : null,
      line ? h("div", { class: "seat-line" }, line) : null);
  }

  // The trick being played, each card in front of the seat that played it.
  function trickInMiddle(ctx, view) {
    const plays = (view.trick && view.trick.plays) || [];
    return plays.map(([seat, card], i) => {
      const at = place(ctx, seat, { x: 17, y: 15 });
      return h("figure", { class: "play", style: { left: `${at.x.toFixed(1)}%`, top: `${at.y.toFixed(1)}%`, "z-index": String(i + 1) },
                           "data-seat": seat },
        Cards.isCode(card) ? Cards.face(card, ctx.faces) : Cards.back(),
        h("figcaption", {}, seatName(ctx, seat)));
    });
  }

  function table(ctx, answer) {
    const view = answer.view;
    const seats = Array.from({ length: ctx.players }, (_, s) => seatPanel(ctx, answer, s));
    const middle = Facts.middle(ctx, view);
    return h("div", { class: "felt", "aria-label": "the table" },
      h("div", { class: "middle" }, middle),
      trickInMiddle(ctx, view), seats);
  }

  // The last completed trick, on one line under the table.
  function lastTrick(ctx, view) {
    const last = Array.isArray(view.tricks) && view.tricks.length ? view.tricks[view.tricks.length - 1] : null;
    if (!last || !last.plays) return null;
    return h("section", { class: "last-trick", "aria-label": "last trick" },
      h("span", { class: "label" }, `Trick ${view.tricks.length} to ${seatName(ctx, last.winner)}:`),
      h("span", { class: "cards tiny" }, last.plays.map(([seat, card]) =>
        h("span", { class: `mini${seat === last.winner ? " won" : ""}`, title: seatName(ctx, seat) },
          Cards.isCode(card) ? Cards.face(card, ctx.faces) : Cards.back()))));
  }

  function status(ctx, answer) {
    const view = answer.view;
    if (answer.finished) return null;
    const acting = answer.to_act || [];
    const mine = acting.includes(ctx.mySeat);
    const others = acting.filter((s) => s !== ctx.mySeat).map((s) => seatName(ctx, s));
    const stage = Facts.stage(ctx, view);
    const who = mine ? (others.length ? `Your turn (also ${others.join(", ")}).` : "Your turn.")
      : acting.length ? `${others.join(", ")} to act.` : "";
    return h("p", { class: `status${mine ? " yours" : ""}` }, stage ? `${stage} · ` : "", who);
  }

  // The whole table. ctx: {game, names, faces, players, mySeat (null: spectator or replay)}.
  function draw(root, ctx, answer) {
    const view = answer.view;
    const parts = [
      answer.finished ? Result.panel(ctx, answer) : null,
      status(ctx, answer),
      table(ctx, answer),
      lastTrick(ctx, view),
      Facts.panels(ctx, view),
    ];
    root.replaceChildren(...parts.filter(Boolean));
    root.dataset.version = answer.version;
  }

  // Only the seats (their clocks and who is connected changed, nothing else).
  function drawSeats(root, ctx, answer) {
    for (let s = 0; s < ctx.players; s += 1) {
      const old = root.querySelector(`.felt .seat[data-seat="${s}"]`);
      if (old) old.replaceWith(seatPanel(ctx, answer, s));
    }
  }

  // Counts down the running clocks between two views (each was drawn with its remaining time).
  function tickClocks(root, sinceMs) {
    for (const node of root.querySelectorAll(".clock [data-runs=yes]")) {
      node.textContent = clockText(Number(node.dataset.ms) - (Date.now() - sinceMs));
    }
  }

  // A move in words: "play queen of spades", "bid 3", "play king of spades, announcing Bella".
  function moveLabel(move, faces) {
    return Words.move(move, faces);
  }

  return { draw, drawSeats, h, seatName, cardRow, tickClocks, moveLabel };
})();
