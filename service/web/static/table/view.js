// Draws one moment of a table from what the service shows: a seat's or a spectator's view (live), or a
// whole state (replay). It reads the keys every game shares (docs/events.md) and lists the rest.
"use strict";

const TableView = (() => {
  // Keys drawn in their own place, or never shown (the state's record, the options, the seed...).
  const PLACED = new Set(["game", "v", "players", "options", "seat", "turn", "hands", "hand_sizes", "trick",
                          "tricks", "dealer", "deal_no", "phase", "turn_up", "trump", "pot", "log", "before",
                          "seed", "deals", "dealings", "rng", "pending"]);
  const SUITS = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };

  function h(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === null || c === undefined || c === false) continue;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return node;
  }

  function seatName(ctx, seat) {
    if (seat === null || seat === undefined) return "nobody";
    const given = ctx.names[seat];
    return given ? `${given} (seat ${seat})` : `Seat ${seat}`;
  }

  function cardRow(cards, faces, cls = "cards") {
    return h("div", { class: cls }, cards.map((c) => Cards.isCode(c) ? Cards.face(c, faces) : Cards.back()));
  }

  // A card given as {rank, suit} (some views do) is the card of that code.
  function asCard(v) {
    if (v && typeof v === "object" && !Array.isArray(v) && Cards.isCode(`${v.rank}${v.suit}`)) return `${v.rank}${v.suit}`;
    return v;
  }

  // A value of the view as the table shows it: cards drawn, the rest written out compactly.
  function value(raw, faces) {
    const v = Array.isArray(raw) ? raw.map(asCard) : asCard(raw);
    if (Cards.isCode(v)) return cardRow([v], faces, "cards small");
    if (Array.isArray(v) && v.length && v.every(Cards.isCode)) return cardRow(v, faces, "cards small");
    if (v === null || v === undefined || (Array.isArray(v) && !v.length)) return h("span", { class: "muted" }, "none");
    if (typeof v === "object") return h("code", {}, JSON.stringify(v));
    return h("span", {}, String(v));
  }

  function perSeatKeys(view, players) {
    return Object.keys(view).filter((k) => !PLACED.has(k) && Array.isArray(view[k]) && view[k].length === players
                                          && view[k].every((x) => typeof x === "number"));
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

  function seatPanel(ctx, answer, seat, stats) {
    const view = answer.view;
    const toAct = (answer.to_act || []).includes(seat);
    const clock = answer.clock && (answer.clock.seats || []).find((c) => c.seat === seat);
    const presence = (answer.presence || []).find((p) => p.seat === seat);
    const size = view.hand_sizes ? view.hand_sizes[seat] : null;
    const hand = view.hands && Array.isArray(view.hands[seat]) && seat !== ctx.mySeat ? view.hands[seat] : null;
    const badges = [
      seat === ctx.mySeat ? h("span", { class: "badge you" }, "you") : null,
      view.dealer === seat ? h("span", { class: "badge" }, "dealer") : null,
      toAct ? h("span", { class: "badge act" }, "to act") : null,
      presence ? h("span", { class: `presence ${presence.connected ? "on" : "off"}`,
                             title: presence.connected ? "connected" : "not connected" }) : null,
    ];
    return h("div", { class: `seat${toAct ? " acting" : ""}${view.turn === seat ? " turn" : ""}`, "data-seat": seat },
      h("div", { class: "seat-name" }, seatName(ctx, seat), " ", badges),
      stats.length ? h("dl", { class: "stats" }, stats.map((k) => [h("dt", {}, k.replace(/_/g, " ")),
                                                                   h("dd", {}, String(view[k][seat]))])) : null,
      clock ? clockPanel(answer.clock, clock) : null,
      hand ? cardRow(hand, ctx.faces, "cards small")
           : size !== null && size !== undefined
             ? h("div", { class: "backs", title: `${size} cards` }, h("span", { class: "count" }, `${size} cards`),
                 Array.from({ length: Math.min(size, 12) }, () => Cards.back()))
             : null);
  }

  function played(ctx, plays, faces) {
    return h("div", { class: "plays" }, plays.map(([seat, card]) =>
      h("figure", { class: "play" }, Cards.isCode(card) ? Cards.face(card, faces) : Cards.back(),
        h("figcaption", {}, ctx.names[seat] || `seat ${seat}`))));
  }

  function centre(ctx, answer) {
    const view = answer.view;
    const parts = [];
    const trick = view.trick && view.trick.plays;
    parts.push(h("section", { class: "trick", "aria-label": "current trick" }, h("h3", {}, "Trick"),
      trick && trick.length ? played(ctx, trick, ctx.faces) : h("p", { class: "muted" }, "No card played yet")));
    const last = Array.isArray(view.tricks) && view.tricks.length ? view.tricks[view.tricks.length - 1] : null;
    if (last) {
      parts.push(h("section", { class: "trick last", "aria-label": "last trick" },
        h("h3", {}, `Last trick: ${seatName(ctx, last.winner)} won it`), played(ctx, last.plays || [], ctx.faces)));
    }
    const facts = [];
    if (view.turn_up) facts.push(["turn-up", value(view.turn_up, ctx.faces)]);
    if (view.trump) facts.push(["trumps", h("span", {}, SUITS[view.trump] || String(view.trump))]);
    if (view.pot !== undefined && view.pot !== null) facts.push(["pot", value(view.pot, ctx.faces)]);
    const stats = new Set(perSeatKeys(view, ctx.players));
    for (const [k, v] of Object.entries(view)) {
      if (PLACED.has(k) || stats.has(k)) continue;
      if (Array.isArray(v) && v.length === ctx.players && !v.every(Cards.isCode)) {
        facts.push([k.replace(/_/g, " "), h("div", { class: "per-seat" }, v.map((x, i) =>
          h("div", { class: "seat-value" }, h("span", { class: "muted" }, `${ctx.names[i] || `seat ${i}`}:`),
            value(x, ctx.faces))))]);
      } else {
        facts.push([k.replace(/_/g, " "), value(v, ctx.faces)]);
      }
    }
    if (facts.length) {
      parts.push(h("section", { class: "facts", "aria-label": "on the table" }, h("h3", {}, "On the table"),
        h("dl", {}, facts.map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]))));
    }
    return h("div", { class: "centre" }, parts);
  }

  function status(ctx, answer) {
    const view = answer.view;
    if (answer.finished) {
      const r = answer.result || {};
      const rank = (r.ranking || []).map((s) => seatName(ctx, s)).join(", ");
      const pay = (r.payoffs || []).map((p, s) => `${ctx.names[s] || `seat ${s}`} ${p > 0 ? "+" : ""}${p}`).join(" · ");
      const how = { timeout: "on time", concession: "by a concession", abort: "called off" }[r.ended_by];
      const forfeit = r.forfeited !== undefined && r.forfeited !== null ? ` ${seatName(ctx, r.forfeited)} forfeited.` : "";
      return h("p", { class: "status over" }, `The match is over${how ? ` (${how})` : ""}.${forfeit}`,
        rank ? ` Ranking: ${rank}.` : "", pay ? ` Payoffs: ${pay}.` : "");
    }
    const acting = answer.to_act || [];
    const who = acting.length ? acting.map((s) => s === ctx.mySeat ? "you" : seatName(ctx, s)).join(", ") : "nobody";
    const phase = view.phase ? ` (${String(view.phase).replace(/_/g, " ")})` : "";
    const deal = view.deal_no ? `Deal ${view.deal_no}${phase}. ` : "";
    return h("p", { class: `status${acting.includes(ctx.mySeat) ? " yours" : ""}` },
      deal, acting.includes(ctx.mySeat) ? "Your turn." : `To act: ${who}.`);
  }

  function seatsOf(ctx, answer) {
    const stats = perSeatKeys(answer.view, ctx.players);
    return h("div", { class: "seats" }, Array.from({ length: ctx.players }, (_, s) => seatPanel(ctx, answer, s, stats)));
  }

  // The whole table. ctx: {names, faces, players, mySeat (null: spectator or replay)}.
  function draw(root, ctx, answer, extras = {}) {
    const parts = [status(ctx, answer), seatsOf(ctx, answer), centre(ctx, answer), extras.hand];
    root.replaceChildren(...parts.filter(Boolean));
    root.dataset.version = answer.version;
  }

  // Only the seats (their clocks and who is connected changed, nothing else).
  function drawSeats(root, ctx, answer) {
    const old = root.querySelector(".seats");
    if (old) old.replaceWith(seatsOf(ctx, answer));
  }

  // Counts down the running clocks between two views (each was drawn with its remaining time).
  function tickClocks(root, sinceMs) {
    for (const node of root.querySelectorAll(".clock [data-runs=yes]")) {
      node.textContent = clockText(Number(node.dataset.ms) - (Date.now() - sinceMs));
    }
  }

  // A move in words: "play queen of spades", "bid · amount 3". Range bounds are not shown.
  function moveLabel(move, faces) {
    let head = move.action.replace(/_/g, " ");
    const rest = [];
    for (const [k, v] of Object.entries(move)) {
      if (["seat", "action", "ranges"].includes(k)) continue;
      const shown = Cards.isCode(v) ? Cards.name(v, faces)
        : Array.isArray(v) && !v.length ? "none"
        : Array.isArray(v) && v.every(Cards.isCode) ? v.join(" ")
        : typeof v === "string" ? v.replace(/_/g, " ") : JSON.stringify(v);
      if (k === "card") head += ` ${shown}`;
      else rest.push(`${k.replace(/_/g, " ")} ${shown}`);
    }
    return [head, ...rest].join(" · ");
  }

  return { draw, drawSeats, h, seatName, cardRow, value, tickClocks, moveLabel };
})();
