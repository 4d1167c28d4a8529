// Each game's facts written the way its players read them. Words: moves and values in words. Facts: what the
// table shows beside the cards (trumps, the pot, a bidding list, a chalk-board, a table of scores). Result: the
// end of a match explained. Nothing here prints a state key or a JSON value: a key this file does not know is
// given a label made of its words and a value made of names, numbers, cards and tables.
"use strict";

const Words = (() => {
  const VERBS = {
    take_miss: "take Miss", name_trump: "name trumps", answer_schmeiss: "answer the schmeiss", schmeiss: "schmeiss",
    exchange_dix: "exchange the dix", pass_dix: "keep the turn-up", kontra: "Kontra", rekontra: "Rekontra",
    call_better_cards: "ask for better cards", accept_better_cards: "agree to a redeal",
    refuse_better_cards: "refuse a redeal", take_stock: "take the stock", pass_stock: "leave the stock",
    choose_suits: "choose the suits", next_deal: "deal again", end_session: "end the match",
    exchange_ten: "exchange the trump ten", keep_ten: "keep the trump ten", turn_again: "turn again",
    no_challenge: "no challenge", bring_in: "bring in", mid_pack: "mid pack", claim: "claim the target",
  };
  // Values of the views that are words of a game (a declaration, a status).
  const VALUES = {
    take_miss: "took Miss", stand: "stands", pass: "passed", fold: "folded", take: "took it", packed: "packed",
    mid_packed: "mid-packed", wrong: "declared wrongly", active: "playing", declarer: "declared", knock: "knocked",
    lurk: "lurks", join: "joined", defend: "defends", stock: "the stock", discard: "the discard pile",
    none: "none", game: "game", vol: "vol", vol_alone: "vol alone", all_nine: "all nine",
    all_nine_alone: "all nine alone", failed_all_nine: "failed all nine", illegal_stock_take: "a stock taken wrongly",
    strokes: "strokes", single: "a single cross", double: "a double cross", whistle: "whistles", stand_tens: "stands",
  };
  const SEAT_KEYS = new Set(["seat", "caller", "maker", "bidder", "shooter", "taker", "defender", "exchanger",
                             "poverty", "last_knocker", "challenger", "dealer", "knocker", "winner_seat"]);

  function words(text) {
    return String(text).replace(/_/g, " ");
  }

  function value(v) {
    if (v === true) return "yes";
    if (v === false) return "no";
    if (v === null || v === undefined) return "—";
    if (typeof v === "string") return VALUES[v] || words(v);
    return String(v);
  }

  function cardList(cards, faces) {
    return cards.map((c) => Cards.isCode(c) ? Cards.name(c, faces) : "a face-down card").join(", ");
  }

  function param(key, v, faces) {
    if (Cards.isCode(v)) return Cards.name(v, faces);
    if (key === "suit" && typeof v === "string") return Cards.suitName(v, faces);
    if (key === "suits" && Array.isArray(v)) return v.map((s) => Cards.suitName(s, faces)).join(" and ");
    if (Array.isArray(v) && !v.length) return "none";
    if (Array.isArray(v) && v.every(Cards.isCode)) return cardList(v, faces);
    if (Array.isArray(v)) return v.map((x) => param(key, x, faces)).join("; ");
    if (v && typeof v === "object") return Object.entries(v).map(([k, x]) => `${words(k)} ${param(k, x, faces)}`).join(", ");
    return value(v);
  }

  // A move in words: "play queen of spades", "bid · amount 3", "play king of hearts, announcing Bella".
  function move(m, faces) {
    let text = VERBS[m.action] || words(m.action);
    const rest = [];
    for (const [k, v] of Object.entries(m)) {
      if (["seat", "action", "ranges"].includes(k)) continue;
      if (k === "card") text += ` ${param(k, v, faces)}`;
      else if (k === "bella") rest.push(v ? "announcing Bella" : "without Bella");
      else if (k === "annul") rest.push(v ? "throw the deal in" : "the schmeisser plays");
      else if (k === "suit" || k === "suits") text += ` ${param(k, v, faces)}`;
      else if (k === "amount") text += ` ${v}`;
      else if (k === "source") text += ` from ${value(v)}`;
      else if (k === "sequences") text += Array.isArray(v) && v.length ? `: ${param(k, v, faces)}` : " no sequence";
      else if (k === "jewels") text += Array.isArray(v) && v.length ? `, keeping ${cardList(v, faces)}` : ", keeping no jewel";
      else if (k === "signal") text += `: ${value(v)}`;
      else if (k === "cards") text += Array.isArray(v) && v.length ? `: ${cardList(v, faces)}` : ": no card";
      else if (k === "discard_index") text += `, discarding card ${v + 1}`;
      else if (k === "keep") text += `, keeping ${param(k, v, faces)}`;
      else if (typeof v === "boolean") rest.push(`${v ? "with" : "without"} ${words(k)}`);
      else rest.push(`${words(k)}: ${param(k, v, faces)}`);
    }
    return [text, ...rest].join(", ");
  }

  return { move, value, words, param, cardList, SEAT_KEYS };
})();

const Facts = (() => {
  const h = (...a) => TableView.h(...a);
  // Keys drawn in their own place, or never shown (the state's record, the options, the seed, internal counts).
  const PLACED = new Set(["game", "v", "players", "options", "seat", "turn", "hands", "hand_sizes", "trick",
                          "tricks", "dealer", "deal_no", "phase", "log", "before", "seed", "deals", "dealings", "rng",
                          "pending", "asked", "eligible", "round", "hand", "hand_name"]);
  // What a per-seat number or word is called at the table.
  const LABELS = {
    chips: "chips", scores: "score", paid: "antes paid", taken: "chips won", wins: "deals won", loaves: "loaves",
    declared: "said", calls: "said", status: "status", turns_completed: "turns played", kept: "jewels kept",
    exposed: "frozen hand", drawn: "cards drawn", thrown_sizes: "hand thrown in", discards_sizes: "discarded",
    discard_sizes: "discarded", discards: "discards", thrown: "thrown in", eliminated: "out since deal",
    folded: "folded, owes", signals: "warning", payoffs: "payoff", tricks: "tricks", clubs: "clubs won",
    queens: "queens won", stock_size: "stock", talon_size: "talon", miss_size: "Miss", turns: "bidding turn",
    amount: "contract", pot: "pot", held: "held over", stake: "stake", declines: "declines", side_pots: "side pots",
    buys: "seats that have bought", stock_no: "stock", left_out: "set aside", pool: "brought-in pool",
    passes: "passes", order: "out in this order", dead: "dead turn-ups", turned: "turned up", open_card: "open card",
    discard: "discard pile", valid_declarations: "you can declare by discarding",
  };
  const PHASES = { bid: "bidding", bidding: "bidding", declare: "declarations", play: "play", trick: "tricks",
                   over: "over", draw: "draw", discard: "discard", exchange: "exchange", buy: "buying",
                   qabbalah: "qabbalah", stock: "the stock", kontra: "Kontra", dix: "the dix" };
  const SCORE_LABEL = { toepen: "penalty points", norrlandsknack: "score (to 0)", davoserjazz: "points this round",
                        klaberjass: "points", styrivolt: "score", alkort: "points" };
  const SEAT_SCORE = { toepen: "penalty", davoserjazz: "points", klaberjass: "points", alkort: "points" };
  const PARTNERS = new Set(["alkort", "styrivolt"]);

  const name = (ctx, s) => TableView.seatName(ctx, s);
  const label = (ctx, key) => (key === "scores" && SCORE_LABEL[ctx.game]) || LABELS[key] || Words.words(key);
  const partnership = (ctx) => PARTNERS.has(ctx.game) || (ctx.game === "klaberjass" && ctx.players === 4);

  // A side by its players' names: "Ann and Cy". Sides are 0/1 (or "A"/"B"), seats 0+2 against 1+3.
  function side(ctx, s) {
    if (s === null || s === undefined) return "nobody";
    if (!partnership(ctx)) return name(ctx, s);
    const i = s === "A" ? 0 : s === "B" ? 1 : Number(s);
    return `${["Side A", "Side B"][i]} (${name(ctx, i)} and ${name(ctx, i + 2)})`;
  }

  function suit(ctx, s) {
    return Cards.suitName(s, ctx.faces);
  }

  function cards(list, ctx, cls = "cards tiny") {
    return TableView.cardRow(list, ctx.faces, cls);
  }

  function asCard(v) {
    if (v && typeof v === "object" && !Array.isArray(v) && Cards.isCode(`${v.rank}${v.suit}`)) return `${v.rank}${v.suit}`;
    return v;
  }

  // Any value as words, cards and tables: never a bracket, a brace or a key as the state spells it.
  function show(ctx, key, raw) {
    const v = Array.isArray(raw) ? raw.map(asCard) : asCard(raw);
    if (Cards.isCode(v)) return cards([v], ctx);
    if (Words.SEAT_KEYS.has(key) && typeof v === "number") return h("span", {}, name(ctx, v));
    if (v === null || v === undefined || (Array.isArray(v) && !v.length)) return h("span", { class: "muted" }, "none");
    if (Array.isArray(v) && v.every(Cards.isCode)) return cards(v, ctx);
    if (Array.isArray(v) && v.every((x) => Array.isArray(x) && typeof x[0] === "number" && x.length >= 2)) {
      return h("ol", { class: "said" }, v.map(([s, ...rest]) =>
        h("li", {}, h("b", {}, name(ctx, s)), " ", rest.map((x) => Cards.isCode(x) || (Array.isArray(x) && x.every(Cards.isCode))
          ? show(ctx, key, x) : `${Words.value(x)} `))));
    }
    if (Array.isArray(v) && v.every((x) => x && typeof x === "object" && !Array.isArray(x))) return records(ctx, v);
    if (Array.isArray(v)) return h("span", {}, v.map((x, i) => [i ? ", " : "", show(ctx, key, x)]));
    if (typeof v === "object") {
      return h("dl", { class: "inline" }, Object.entries(v).map(([k, x]) =>
        [h("dt", {}, label(ctx, k)), h("dd", {}, show(ctx, k, x))]));
    }
    if (/_size$/.test(key) && typeof v === "number") return h("span", {}, v === 1 ? "1 card" : `${v} cards`);
    return h("span", {}, Words.value(v));
  }

  // A list of records (a history, the exchanges) as a table: one row each.
  function records(ctx, rows) {
    const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    return h("div", { class: "scroll" }, h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, keys.map((k) => h("th", {}, label(ctx, k))))),
      h("tbody", {}, rows.map((r) => h("tr", {}, keys.map((k) => h("td", {}, show(ctx, k, r[k]))))))));
  }

  function isPerSeat(ctx, v) {
    return Array.isArray(v) && v.length === ctx.players && !v.every((x) => Cards.isCode(x));
  }

  // Per-seat values (chips, scores, what each said) as one table: a row per seat, a column per fact.
  function seatTable(ctx, view) {
    const columns = [];
    const wonTricks = tricksWon(ctx, view);
    if (wonTricks) columns.push(["tricks", wonTricks]);
    for (const [k, v] of Object.entries(view)) {
      if (PLACED.has(k) || handled(ctx, k)) continue;
      if (isPerSeat(ctx, v)) columns.push([k, v]);
      else if (v && typeof v === "object" && !Array.isArray(v) && Object.values(v).length
               && Object.values(v).every((x) => isPerSeat(ctx, x))) {
        for (const [k2, x] of Object.entries(v)) if (!(k2 === "tricks" && wonTricks)) columns.push([k2, x]);
      }
    }
    if (!columns.length) return null;
    return h("section", { class: "panel", "aria-label": "the players" }, h("div", { class: "scroll" },
      h("table", { class: "grid seats-table" },
        h("thead", {}, h("tr", {}, h("th", {}, ""), columns.map(([k]) => h("th", {}, label(ctx, k))))),
        h("tbody", {}, Array.from({ length: ctx.players }, (_, s) => h("tr", { class: s === ctx.mySeat ? "me" : null },
          h("th", {}, name(ctx, s)), columns.map(([k, v]) => h("td", {}, cell(ctx, k, v[s])))))))));
  }

  function cell(ctx, key, v) {
    if (Array.isArray(v) && v.length && v.every(Cards.isCode)) return cards(v, ctx);
    if (Array.isArray(v)) return v.length ? show(ctx, key, v) : "—";
    return Words.value(v);
  }

  function tricksWon(ctx, view) {
    if (!Array.isArray(view.tricks)) return null;
    const won = Array(ctx.players).fill(0);
    for (const t of view.tricks) if (typeof t.winner === "number") won[t.winner] += 1;
    return won;
  }

  // --- each game's own facts -------------------------------------------------------------------------------

  const BIDS = { take: "takes", pass: "passes", schmeiss: "says schmeiss" };
  const MULTIPLIER = { 2: "Kontra (doubled)", 4: "Rekontra (redoubled)" };

  function klaberjass(ctx, view) {
    const out = [];
    if (view.calls && view.calls.length) {
      out.push(panel("The bidding", h("ol", { class: "bidding" }, view.calls.map(([s, verb, arg]) =>
        h("li", {}, h("b", {}, name(ctx, s)), " ",
          verb === "name_trump" ? `names ${suit(ctx, arg)}` : BIDS[verb] || Words.value(verb))))));
    }
    const contract = [];
    if (view.maker !== null && view.maker !== undefined) {
      contract.push(h("p", {}, h("b", {}, name(ctx, view.maker)), ` plays with ${view.trump ? suit(ctx, view.trump) : "no"} trumps`,
        partnership(ctx) ? ` for ${side(ctx, view.maker % 2)}` : "", ": the maker's side must score more than the others."));
    }
    if (MULTIPLIER[view.multiplier]) contract.push(h("p", {}, MULTIPLIER[view.multiplier], ": every point of this deal counts ",
      view.multiplier === 2 ? "twice." : "four times."));
    if (view.held) contract.push(h("p", {}, `${view.held} points held over from a tied deal go to this deal's winner.`));
    if (view.sequences) {
      const q = view.sequences;
      contract.push(h("p", {}, `Sequences: ${side(ctx, q.winner)} score${partnership(ctx) ? "" : "s"} ${q.points}.`),
        (q.shown || []).map(([s, run]) => h("div", { class: "seat-value" }, `${name(ctx, s)}:`, cards(run, ctx))));
    }
    const mine = ctx.mySeat !== null && view.declared ? view.declared[ctx.mySeat] : null;
    if (Array.isArray(mine)) contract.push(h("div", { class: "seat-value" }, "You declared:",
      mine.length ? mine.map((run) => cards(run, ctx)) : " no sequence."));
    if (view.bella !== null && view.bella !== undefined) contract.push(h("p", {}, `Bella: ${side(ctx, view.bella)}.`));
    if (view.false_claims && view.false_claims.length) {
      const many = view.false_claims.length > 1;
      contract.push(h("p", {}, `${many ? "False claims" : "A false claim"} of the target by `,
        view.false_claims.map((s) => side(ctx, s)).join(" and "),
        many ? ": both sides forfeit their points of this deal." : ": that side forfeits its points of this deal."));
    }
    if (view.winner !== null && view.winner !== undefined) contract.push(h("p", {}, `${side(ctx, view.winner)} won the match.`));
    if (contract.length) out.push(panel("The contract", contract));
    return out;
  }

  // The chalk-board: for each side its three bars, those erased struck out, and the crosses of the side
  // holding them (a double, a monk's cross, drawn as two).
  function chalkBoard(ctx, board) {
    const crosses = board.crosses || {};
    return h("div", { class: "chalk" }, [0, 1].map((i) => {
      const sideName = ["A", "B"][i];
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      const erased = (board.bars || [0, 0])[i];
      const holds = crosses.side === sideName;
      const singles = holds ? crosses.singles : 0;
      const doubles = holds ? crosses.doubles : 0;
      const width = 60 + 26 * (singles + 2 * doubles);
      svg.setAttribute("viewBox", `0 0 ${width} 40`);
      svg.setAttribute("class", "board");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", `${erased} of 3 bars struck, ${singles} single and ${doubles} double crosses`);
      const line = (x1, y1, x2, y2, cls) => {
        const l = document.createElementNS("http://www.w3.org/2000/svg", "line");
        for (const [k, v] of Object.entries({ x1, y1, x2, y2, class: cls })) l.setAttribute(k, v);
        svg.appendChild(l);
      };
      for (let b = 0; b < 3; b += 1) {
        line(10 + b * 16, 6, 10 + b * 16, 34, "bar");
        if (b < erased) line(3 + b * 16, 30, 17 + b * 16, 10, "stroke");
      }
      for (let c = 0; c < singles + doubles; c += 1) {
        const x = 62 + c * 26 + (c >= singles ? (c - singles) * 26 : 0);
        line(x, 8, x + 20, 32, "cross");
        line(x + 20, 8, x, 32, "cross");
        if (c >= singles) { line(x + 26, 8, x + 46, 32, "cross"); line(x + 46, 8, x + 26, 32, "cross"); }
      }
      const words = `${erased} stroke${erased === 1 ? "" : "s"}` + (holds
        ? `, ${singles} single and ${doubles} double cross${doubles === 1 ? "" : "es"}` : ", no cross");
      return h("div", { class: "chalk-side" }, h("b", {}, side(ctx, sideName)), svg, h("span", { class: "muted" }, words));
    }));
  }

  function award(a) {
    if (!a) return "—";
    if (a.kind === "strokes") return `${a.count} stroke${a.count === 1 ? "" : "s"}`;
    return `${a.count || 1} ${Words.value(a.kind)}`;
  }

  function styrivoltDeals(ctx, deals) {
    return h("div", { class: "scroll" }, h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, ["deal", "dealer", "suits", "tricks A : B", "outcome", "to", "chalked"].map((t) => h("th", {}, t)))),
      h("tbody", {}, deals.map((d) => h("tr", {}, h("td", {}, d.deal), h("td", {}, name(ctx, d.dealer)),
        h("td", {}, (d.chosen || []).map((s) => suit(ctx, s)).join(", ")), h("td", {}, (d.tricks || []).join(" : ")),
        h("td", {}, Words.value(d.outcome)), h("td", {}, d.side ? `side ${d.side}` : "—"), h("td", {}, award(d.award)))))));
  }

  function styrivolt(ctx, view) {
    const out = [];
    const facts = [];
    if (view.chosen) facts.push(h("p", {}, `Chosen suits: ${suit(ctx, view.chosen[0])} first, ${suit(ctx, view.chosen[1])} second.`));
    if (view.taker !== null && view.taker !== undefined) facts.push(h("p", {}, `${name(ctx, view.taker)} took the stock.`));
    if (Array.isArray(view.discards)) facts.push(h("div", { class: "seat-value" }, "Your discards:", cards(view.discards, ctx)));
    if (view.continuing) facts.push(h("p", {}, `${side(ctx, view.continuing)} play on for all nine tricks.`));
    if (facts.length) out.push(panel("This deal", facts));
    if (view.board) out.push(panel("The chalk-board", chalkBoard(ctx, view.board)));
    if (view.history && view.history.length) out.push(panel("Deals so far", styrivoltDeals(ctx, view.history)));
    return out;
  }

  function femkort(ctx, view) {
    const out = [];
    if (view.call) out.push(panel("Better cards", h("p", {}, `${name(ctx, view.call.caller)} asks for a redeal.`,
      view.call.answers && view.call.answers.length ? ` Answered: ${show(ctx, "answers", view.call.answers).textContent}.` : "")));
    if (view.called && view.called.length) out.push(panel("Better cards asked for by",
      h("p", {}, view.called.map((s) => name(ctx, s)).join(", "))));
    return out;
  }

  function jewel(ctx, view) {
    const out = [];
    const pile = view.discard || [];
    const facts = [h("div", { class: "seat-value" }, "Open card:", cards([view.open_card].filter(Boolean), ctx))];
    facts.push(h("div", { class: "seat-value" }, `Discard pile (${pile.length} card${pile.length === 1 ? "" : "s"}), on top:`,
      pile.length ? cards([pile[pile.length - 1]], ctx) : h("span", { class: "muted" }, "empty")));
    if (view.stock_size !== undefined) facts.push(h("p", {}, `Stock: ${view.stock_size} cards${view.stock_no === 2 ? " (the second stock)" : ""}.`));
    if (Array.isArray(view.valid_declarations) && view.valid_declarations.length) {
      facts.push(h("div", { class: "seat-value" }, "You can declare by discarding:", cards(view.valid_declarations, ctx)));
    }
    out.push(panel("The deal", facts));
    return out;
  }

  function davoserjazz(ctx, view) {
    const out = [];
    if (view.layout) {
      // Each suit's row is [lowest, highest] rank, aces low: drawn as the run of cards it holds.
      const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
      out.push(panel("The layout", Object.entries(view.layout).map(([s, row]) =>
        h("div", { class: "seat-value" }, `${suit(ctx, s)}:`, Array.isArray(row) && row.length === 2
          ? cards(RANKS.slice(row[0] - 1, row[1]).map((r) => `${r}${s}`), ctx)
          : h("span", { class: "muted" }, "no seven yet")))));
    }
    if (Array.isArray(view.points) && view.points.length) {
      out.push(panel("Points this round, hand by hand", h("div", { class: "scroll" }, h("table", { class: "grid" },
        h("thead", {}, h("tr", {}, h("th", {}, "hand"), Array.from({ length: ctx.players }, (_, s) => h("th", {}, name(ctx, s))))),
        h("tbody", {}, view.points.map((row, i) => h("tr", {}, h("td", {}, HANDS[i] || String(i + 1)),
          (Array.isArray(row) ? row : []).map((p) => h("td", {}, String(p))))))))));
    }
    return out;
  }
  const HANDS = ["Few", "Many", "Clubs", "Queens", "First and last", "King of spades", "Qabbalah"];

  const GAMES = {
    klaberjass: { keys: ["calls", "maker", "multiplier", "held", "sequences", "declared", "bella", "false_claims",
                         "winner", "trump", "turn_up", "bottom"], draw: klaberjass },
    styrivolt: { keys: ["chosen", "taker", "discards", "continuing", "board", "history", "turned"], draw: styrivolt },
    femkort: { keys: ["call", "called", "pot"], draw: femkort },
    jewel: { keys: ["open_card", "discard", "stock_size", "stock_no", "valid_declarations"], draw: jewel },
    davoserjazz: { keys: ["layout", "points"], draw: davoserjazz },
  };
  const MIDDLE_KEYS = ["trump", "turn_up", "pot", "bottom", "turned", "open_card"];

  function handled(ctx, key) {
    const game = GAMES[ctx.game];
    return MIDDLE_KEYS.includes(key) || (game && game.keys.includes(key)) || key === "partner_card";
  }

  function panel(title, ...body) {
    return h("section", { class: "panel" }, h("h3", {}, title), body);
  }

  // In the middle of the table: trumps, the turn-up, the pot.
  function middle(ctx, view) {
    const parts = [];
    const trump = view.trump || (ctx.game === "styrivolt" ? null : Cards.isCode(asCard(view.turn_up)) ? asCard(view.turn_up)[1] : null);
    if (trump && typeof trump === "string") parts.push(h("div", { class: "trumps" }, `Trumps: ${suit(ctx, trump)}`));
    const shown = [];
    if (view.turn_up) shown.push(["turn-up", asCard(view.turn_up)]);
    if (view.bottom) shown.push(["bottom card", view.bottom]);
    if (view.open_card) shown.push(["open card", view.open_card]);
    if (Array.isArray(view.turned) && view.turned.length) shown.push(["turned", view.turned]);
    for (const [what, c] of shown) {
      parts.push(h("div", { class: "shown" }, cards(Array.isArray(c) ? c : [c], ctx), h("span", { class: "muted" }, what)));
    }
    if (typeof view.pot === "number") parts.push(h("div", { class: "pot" }, `Pot: ${view.pot} chip${view.pot === 1 ? "" : "s"}`));
    return parts;
  }

  // "Deal 2 · bidding": where the match is.
  function stage(ctx, view) {
    const bits = [];
    if (ctx.game === "davoserjazz" && view.hand) bits.push(`Round ${view.round}, hand ${view.hand} of 7: ${HANDS[view.hand - 1]}`);
    else if (view.deal_no) bits.push(`Deal ${view.deal_no}`);
    if (view.phase && view.phase !== "over") bits.push(PHASES[view.phase] || Words.words(view.phase));
    return bits.join(" · ");
  }

  // Under a seat's name: the numbers its players look at first.
  function seatLine(ctx, view, seat) {
    const bits = [];
    if (Array.isArray(view.chips)) bits.push(`${view.chips[seat]} chips`);
    if (Array.isArray(view.scores) && ctx.game !== "styrivolt") bits.push(`${SEAT_SCORE[ctx.game] || "score"} ${view.scores[seat]}`);
    const won = tricksWon(ctx, view);
    if (won && won[seat]) bits.push(`${won[seat]} trick${won[seat] === 1 ? "" : "s"}`);
    if (view.maker === seat) bits.push("maker");
    if (view.bidder === seat || view.shooter === seat) bits.push("bidder");
    if (ctx.mySeat !== null && seat === ctx.mySeat && view.partner_card !== undefined && view.partner_card !== null) {
      bits.push(view.partner_card === "none" ? "partner shows nothing" : `partner shows ${Cards.name(view.partner_card, ctx.faces)}`);
    }
    return bits.join(" · ");
  }

  // Below the table: the game's own panels, the players' table, and anything else the view holds.
  function panels(ctx, view) {
    const game = GAMES[ctx.game];
    const out = game ? game.draw(ctx, view) : [];
    const table = seatTable(ctx, view);
    if (table) out.push(table);
    const rest = [];
    for (const [k, v] of Object.entries(view)) {
      if (PLACED.has(k) || handled(ctx, k) || isPerSeat(ctx, v)) continue;
      if (v && typeof v === "object" && !Array.isArray(v) && Object.values(v).length
          && Object.values(v).every((x) => isPerSeat(ctx, x))) continue;
      if (v === null || (Array.isArray(v) && !v.length)) continue;
      rest.push([label(ctx, k), show(ctx, k, v)]);
    }
    if (rest.length) out.push(h("section", { class: "panel" }, h("dl", { class: "facts" }, rest.map(([k, v]) =>
      [h("dt", {}, k), h("dd", {}, v)]))));
    return out.length ? h("div", { class: "panels" }, out) : null;
  }

  // A deal's settlement (its deal_settled event), where the replay has it: what the deal did to each seat and,
  // for Jewel, each hand as it was shown (its melds) and the whole chart of who pays whom.
  function settlement(ctx, event) {
    const rows = Array.from({ length: ctx.players }, (_, s) => s);
    const unit = event.unit === "chips" ? "chips" : event.unit === "crosses" ? "crosses" : "points";
    const parts = [h("div", { class: "scroll" }, h("table", { class: "grid" },
      h("thead", {}, h("tr", {}, h("th", {}, ""), h("th", {}, unit))),
      h("tbody", {}, rows.map((s) => h("tr", {}, h("th", {}, name(ctx, s)),
        h("td", {}, `${event.changes[s] > 0 ? "+" : ""}${event.changes[s]}`))))))];
    if (ctx.game === "jewel" && Array.isArray(event.seats)) parts.push(jewelHands(ctx, event), jewelChart(ctx, event.matrix));
    return panel(`Deal ${event.deal} settled`, parts);
  }

  const JEWEL_NUMBERS = [["j", "jewel points"], ["q", "pack penalty"], ["bonus", "bonus"], ["penalty", "penalty"],
                         ["s", "hand score"]];

  function jewelHands(ctx, event) {
    return event.seats.map((r, seat) => {
      const a = r.arrangement || {};
      const numbers = JEWEL_NUMBERS.filter(([k]) => typeof r[k] === "number").map(([k, what]) => `${what} ${r[k]}`);
      return h("div", { class: "shown-hand" },
        h("p", {}, h("b", {}, name(ctx, seat)), ` ${Words.value(r.status)}${seat === event.declarer ? " (the declarer)" : ""}: `,
          numbers.join(", "), "."),
        r.kept_jewels && r.kept_jewels.length ? h("div", { class: "seat-value" }, "jewels kept:", cards(r.kept_jewels, ctx)) : null,
        a.compulsory ? h("div", { class: "seat-value" }, "compulsory sequence:", cards(a.compulsory, ctx)) : null,
        (a.triples || []).map((t) => h("div", { class: "seat-value" }, `${Words.value(t.kind)}:`, cards(t.cards, ctx))),
        a.unarranged && a.unarranged.length ? h("div", { class: "seat-value" }, "unarranged:", cards(a.unarranged, ctx)) : null);
    });
  }

  // The chart: the cell in row i, column k is what k pays i.
  function jewelChart(ctx, matrix) {
    if (!Array.isArray(matrix)) return null;
    return h("div", { class: "scroll" }, h("table", { class: "grid chart" },
      h("caption", {}, "The chart: what each player (column) pays each player (row)"),
      h("thead", {}, h("tr", {}, h("th", {}, ""), matrix.map((_, k) => h("th", {}, name(ctx, k))))),
      h("tbody", {}, matrix.map((row, i) => h("tr", {}, h("th", {}, name(ctx, i)),
        row.map((x, k) => h("td", {}, i === k ? "" : String(x))))))));
  }

  return { middle, stage, seatLine, panels, side, show, chalkBoard, styrivoltDeals, partnership, settlement };
})();

const Result = (() => {
  const h = (...a) => TableView.h(...a);
  const ENDED = { timeout: "on time", concession: "by a concession", abort: "called off" };

  function places(values) {
    return values.map((v) => 1 + values.filter((x) => x > v).length);
  }

  // Why the payoffs are what they are, in the game's terms.
  function why(ctx, r) {
    const lines = [];
    const pay = r.payoffs || [];
    if (r.ended_by === "abort") lines.push("The match was called off before the first trick: nobody wins or pays.");
    if (r.ended_by === "timeout" || r.ended_by === "concession") {
      lines.push(`${TableView.seatName(ctx, r.forfeited)} forfeited the match ${ENDED[r.ended_by]}.`);
    }
    if (ctx.game === "styrivolt" && r.board) {
      const c = r.board.crosses || {};
      if (!c.side) {
        lines.push("Only crosses count at the end of a Stýrivolt match, never the strokes of an unfinished chalk-up. "
                   + "Nobody holds a cross, so nobody wins anything.");
      } else {
        const worth = c.singles + 2 * c.doubles;
        lines.push(`${Facts.side(ctx, c.side)} hold ${c.singles} single and ${c.doubles} double cross${c.doubles === 1 ? "" : "es"}, `
                   + `worth ${worth}: each of its players wins ${Math.abs(pay[c.side === "A" ? 0 : 1])} and each opponent pays as much.`);
      }
    } else if (pay.length && pay.every((p) => p === 0)) {
      lines.push("Nobody won or lost anything over the match.");
    } else if (pay.length) {
      const winners = pay.map((p, s) => [p, s]).filter(([p]) => p > 0);
      lines.push(`The payoffs are what each player won or lost over the match; they add up to zero. `
        + winners.map(([p, s]) => `${TableView.seatName(ctx, s)} is ${p} up`).join(", ") + ".");
    }
    return lines;
  }

  function headline(ctx, r) {
    if (r.ended_by === "abort") return "The match was called off";
    const pay = r.payoffs || [];
    const scores = r.scores || [];
    const by = pay.some((p) => p !== 0) ? pay : scores;
    const best = Math.max(...by);
    const top = by.map((v, s) => [v, s]).filter(([v]) => v === best).map(([, s]) => s);
    if (!by.length || top.length === by.length) return "The match is over: everyone finishes level";
    if (Facts.partnership(ctx) && top.length === 2 && top[0] % 2 === top[1] % 2) return `The match is over: ${Facts.side(ctx, top[0] % 2)} win`;
    return `The match is over: ${top.map((s) => TableView.seatName(ctx, s)).join(" and ")} win${top.length === 1 ? "s" : ""}`;
  }

  function panel(ctx, answer) {
    const r = answer.result || {};
    const how = ENDED[r.ended_by];
    const pay = r.payoffs || [];
    const scores = r.scores || [];
    const order = (r.ranking && r.ranking.length ? r.ranking : pay.map((_, s) => s));
    const place = Array.isArray(r.places) ? r.places : places(pay.some((p) => p !== 0) ? pay : scores);
    const rows = order.map((s) => h("tr", { class: s === ctx.mySeat ? "me" : null },
      h("td", {}, place[s] === undefined ? "" : `${place[s]}.`), h("th", {}, TableView.seatName(ctx, s)),
      scores.length ? h("td", {}, String(scores[s])) : null,
      pay.length ? h("td", {}, `${pay[s] > 0 ? "+" : ""}${pay[s]}`) : null));
    return h("section", { class: "result", "aria-label": "the result" },
      h("h2", { class: "status over" }, `${headline(ctx, r)}${how ? ` (${how})` : ""}.`),
      why(ctx, r).map((line) => h("p", {}, line)),
      h("div", { class: "scroll" }, h("table", { class: "grid" },
        h("thead", {}, h("tr", {}, h("th", {}, "place"), h("th", {}, "player"), scores.length ? h("th", {}, "score") : null,
          pay.length ? h("th", {}, "payoff") : null)), h("tbody", {}, rows))),
      ctx.game === "styrivolt" && r.board ? [Facts.chalkBoard(ctx, r.board),
        r.deals && r.deals.length ? Facts.styrivoltDeals(ctx, r.deals) : null] : null);
  }

  return { panel };
})();
