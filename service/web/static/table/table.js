// The live table: /table/{id} for a spectator, /table/{id}#token=... for a seat (optional ?names=Ann,Bo).
"use strict";

(() => {
  const h = TableView.h;
  const sid = decodeURIComponent(location.pathname.split("/")[2] || "");
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  const query = new URLSearchParams(location.search);
  const $ = (id) => document.getElementById(id);

  const state = { answer: null, drawn: "", drawnGame: "", info: null, ctx: null, receivedAt: 0, logSeen: 0,
                  busy: false };

  function names() {
    return (query.get("names") || "").split(",").map((n) => n.trim().slice(0, 24));
  }

  function say(text, kind = "refusal") {
    const box = $("message");
    box.className = `message ${kind}`;
    box.textContent = text;
    box.hidden = !text;
  }

  function facesChoice(game) {
    const stored = localStorage.getItem(`faces:${game}`);
    return Cards.facesFor(game, query.get("faces") || stored || "");
  }

  function setupFaces(game) {
    const choices = Cards.choices(game);
    const select = $("faces");
    select.replaceChildren(...choices.map((c) => h("option", { value: c }, c)));
    select.value = state.ctx.faces;
    select.parentElement.hidden = choices.length < 2;
    select.addEventListener("change", () => {
      localStorage.setItem(`faces:${game}`, select.value);
      state.ctx.faces = select.value;
      redraw();
    });
  }

  // The action that plays a card from the hand now: the one the legal moves use, else the vocabulary's.
  function cardAction(answer) {
    const legal = answer.legal_moves.find((m) => typeof m.card === "string");
    if (legal) return legal.action;
    const moves = (state.info && state.info.moves) || {};
    return Object.keys(moves).find((a) => moves[a].params && "card" in moves[a].params) || "play";
  }

  function simpleCardMove(move) {
    return Object.keys(move).every((k) => ["seat", "action", "card"].includes(k));
  }

  function moveLabel(move) {
    const shown = { ...move };
    for (const k of Object.keys(move.ranges || {})) delete shown[k];
    return TableView.moveLabel(shown, state.ctx.faces);
  }

  // A legal move with ranges: a small form, a number box per ranged amount and a box per card of a set to choose.
  function rangedControl(move) {
    const fields = Object.entries(move.ranges).map(([k, r]) => r.choose !== undefined
      ? h("fieldset", { class: "choose", "data-name": k, "data-choose": r.choose },
          h("legend", {}, `choose ${r.choose}`),
          r.from.map((card) => h("label", { class: "pick" },
            h("input", { type: "checkbox", value: card, checked: (move[k] || []).includes(card) }),
            Cards.face(card, state.ctx.faces))))
      : h("label", {}, `${Words.words(k)} `,
          h("input", { type: "number", name: k, min: r.min, max: r.max, step: 1, value: move[k], required: true })));
    return h("form", { class: "ranged", "data-move": JSON.stringify(move), onsubmit: (e) => {
      e.preventDefault();
      const out = { ...move };
      delete out.ranges;
      for (const input of e.target.querySelectorAll("input[type=number]")) out[input.name] = Number(input.value);
      for (const set of e.target.querySelectorAll("fieldset.choose")) {
        out[set.dataset.name] = [...set.querySelectorAll("input:checked")].map((i) => i.value);
      }
      submit(out);
    } }, fields, h("button", { type: "submit" }, moveLabel(move)));
  }

  function moveButton(move, cls, ...content) {
    return h("button", { type: "button", class: cls, "data-move": JSON.stringify(move), onclick: () => submit(move) },
             content.length ? content : moveLabel(move));
  }

  // The seat's hand and every move it may make: a card of the hand plays it, the other moves are buttons (a
  // card-carrying move of another kind, such as Jewel's declaration, is a row of small cards of its own).
  function handAndActions(answer) {
    if (state.ctx.mySeat === null) return null;
    const hands = answer.view.hands || [];
    const hand = Array.isArray(hands[state.ctx.mySeat]) ? hands[state.ctx.mySeat] : [];
    const legal = answer.legal_moves;
    const action = cardAction(answer);
    const byCard = new Map(legal.filter((m) => simpleCardMove(m) && m.action === action && hand.includes(m.card))
      .map((m) => [m.card, m]));
    const others = legal.filter((m) => byCard.get(m.card) !== m);
    const cardMoves = new Map();  // action -> its simple card moves that are not the hand's own
    for (const m of others) {
      if (simpleCardMove(m) && hand.includes(m.card) && !m.ranges) {
        cardMoves.set(m.action, [...(cardMoves.get(m.action) || []), m]);
      }
    }
    const rest = others.filter((m) => !(simpleCardMove(m) && hand.includes(m.card) && !m.ranges));
    const cards = hand.map((card, i) => {
      const move = byCard.get(card) || { seat: state.ctx.mySeat, action, card };
      return h("button", { type: "button", class: `hand-card${byCard.has(card) ? " legal" : ""}`, "data-card": card,
                           "data-index": i, "data-move": byCard.has(card) ? JSON.stringify(move) : null,
                           "aria-label": moveLabel(move), onclick: () => submit(move) },
               Cards.face(card, state.ctx.faces));
    });
    const mine = answer.to_act.includes(state.ctx.mySeat);
    return h("section", { class: `mine${mine ? " yours" : ""}`, "aria-label": "your hand" },
      h("div", { class: "mine-head" }, h("h3", {}, mine ? "Your hand: your turn" : "Your hand"),
        rest.length ? h("div", { class: "actions" }, rest.map((m) => m.ranges ? rangedControl(m)
          : moveButton(m, "action"))) : null),
      h("div", { class: "hand" }, cards.length ? cards : h("p", { class: "muted" }, "No cards in your hand")),
      [...cardMoves].map(([verb, moves]) => h("div", { class: "card-moves" },
        h("span", {}, `Or ${Words.move({ action: verb }, state.ctx.faces)}, with:`),
        moves.map((m) => moveButton(m, "mini-card", Cards.face(m.card, state.ctx.faces))))),
      // A service whose answers carry "clock" has concessions and aborts.
      answer.finished || !("clock" in answer) ? null : h("details", { class: "give-up" },
        h("summary", {}, "Give up or call off"),
        h("button", { type: "button", id: "concede", onclick: () => end("concede") }, "Concede the match"),
        h("button", { type: "button", id: "abort", onclick: () => end("abort") }, "Call the match off")));
  }

  // A concession or an abort: the service refuses an abort once a trick is complete, in its own words.
  async function end(what) {
    await send(() => Api.end(sid, token, what));
  }

  function redraw() {
    if (!state.answer) return;
    TableView.draw($("table"), state.ctx, state.answer);
    const hand = handAndActions(state.answer);
    $("hand").replaceChildren(...(hand && !state.answer.finished ? [hand] : []));
    $("hand").hidden = !hand || state.answer.finished;
    document.body.dataset.version = state.answer.version;
    document.body.dataset.finished = state.answer.finished;
  }

  function show(answer) {
    if (state.answer && answer.version < state.answer.version) return;  // a stream event behind a move's answer
    // The table itself is drawn again only when it changed: a new clock reading or someone (dis)connecting
    // redraws the seats alone, so that a bid being typed or an open menu is left as it is.
    const game = JSON.stringify({ ...answer, clock: undefined, presence: undefined });
    const whole = JSON.stringify(answer);
    if (whole === state.drawn) return;  // the stream repeating what a move's answer showed
    const moved = !state.answer || answer.version !== state.answer.version;
    const seatsOnly = game === state.drawnGame;
    state.drawn = whole;
    state.drawnGame = game;
    state.answer = answer;
    state.receivedAt = Date.now();
    if (moved) say("");  // a refusal was about the table as it was
    if (seatsOnly) TableView.drawSeats($("table"), state.ctx, answer);
    else redraw();
    if (moved) refreshFeed();
  }

  async function submit(move) {
    const posted = { ...move };
    delete posted.ranges;
    const version = state.answer.version;
    await send(() => Api.move(sid, token, posted, version));
  }

  async function send(call) {
    if (state.busy) return;
    state.busy = true;
    try {
      const answer = await call();
      say("");
      show(answer);
    } catch (err) {
      if (err instanceof Api.Problem && err.body.code === "version_conflict") {
        say("The table moved on before your move arrived; look again and choose.", "notice");
        show(await Api.session(sid, token));
      } else {
        say(err.message);
      }
    } finally {
      state.busy = false;
    }
  }

  // A log entry in words: a move (with what it hides), or how a seat's turn or the match ended.
  function describe(entry) {
    const who = TableView.seatName(state.ctx, entry.seat);
    if (entry.move === undefined) {
      const why = entry.reason ? ` (${Words.words(entry.reason)})` : "";
      return `${who}: ${Words.words(entry.type || "an event")}${why}${entry.ends ? "; the match is over" : ""}`;
    }
    const rest = moveLabel({ ...entry.move, seat: entry.seat });
    const hidden = entry.hidden && entry.hidden.length ? ` (${entry.hidden.map(Words.words).join(", ")} hidden)` : "";
    const auto = entry.auto ? (entry.timeout ? " (played by the referee: time was up)" : " (played by the referee)") : "";
    return `${who}: ${rest}${hidden}${auto}`;
  }

  async function refreshFeed() {
    try {
      const log = await Api.log(sid);
      const fresh = log.entries.filter((e) => e.version > state.logSeen);
      const feed = $("feed");
      for (const entry of fresh) {
        feed.prepend(h("li", { "data-version": entry.version }, h("span", { class: "num" }, `${entry.version}.`),
                       describe(entry)));
        state.logSeen = Math.max(state.logSeen, entry.version);
      }
    } catch (_) { /* the feed is a convenience: the table itself is drawn from the views */ }
  }

  function note(text) {
    $("feed").prepend(h("li", { class: "note" }, text));
  }

  async function start() {
    if (!sid) { say("No session id in the address."); return; }
    let first;
    try {
      first = await Api.session(sid, token);
    } catch (err) {
      say(err.status === 401 ? "This seat's link is not valid for this session." : err.message);
      $("moves").hidden = true;
      return;
    }
    state.info = await Api.game(first.game).catch(() => null);
    state.ctx = { game: first.game, names: names(), faces: facesChoice(first.game), mySeat: first.seat,
                  players: first.view.players || (first.view.hand_sizes || []).length };
    const gameName = state.info ? state.info.name : first.game;
    document.title = `${gameName} - ${first.seat === null ? "spectator" : TableView.seatName(state.ctx, first.seat)}`;
    $("title").textContent = gameName;
    $("role").textContent = first.seat === null ? "Spectator" : `You are ${TableView.seatName(state.ctx, first.seat)}`;
    $("rules").href = `/games/${encodeURIComponent(first.game)}`;
    $("replay").href = `/table/${encodeURIComponent(sid)}/replay${location.search}`;
    $("replay").hidden = !first.finished;
    setupFaces(first.game);
    show(first);
    const stream = Api.follow(sid, token, {
      view: show,
      gap: (g) => note(g.detail),
      end: (e) => { note(e.detail); $("replay").hidden = false; },
      gone: (g) => note(g.detail),
      error: (e) => note(e.message || e.detail || "The stream stopped."),
      status: (up) => { $("live").className = up ? "live on" : "live off"; document.body.dataset.live = up; },
    });
    // A page left for another keeps no stream open: a browser holds six connections to a server in all, so
    // streams of pages kept in its back-forward cache would starve the next page's requests.
    window.addEventListener("pagehide", () => stream.stop());
    window.addEventListener("pageshow", (e) => { if (e.persisted) location.reload(); });
    setInterval(() => TableView.tickClocks($("table"), state.receivedAt), 250);
  }

  window.addEventListener("hashchange", () => location.reload());  // another seat's link opened in this tab
  start();
})();
