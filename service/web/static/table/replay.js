// /table/{id}/replay: a finished session stepped through move by move. The public log of a finished match
// reveals its seed and every move (docs/fair-dealing.md); each step is the stateless /replay of the first k
// moves, drawn as the spectator's view with every hand turned face up.
"use strict";

(() => {
  const h = TableView.h;
  const sid = decodeURIComponent(location.pathname.split("/")[2] || "");
  const query = new URLSearchParams(location.search);
  const $ = (id) => document.getElementById(id);
  const steps = new Map();  // k -> Promise of the drawn answer after k moves
  let log = null;
  let moves = [];  // the log's move entries; a session that ended by a timeout, a concession or an abort
  let last = 0;    // has one more step after them: that ending (the log's replay.end)
  let ctx = null;
  let at = 0;

  function say(text) {
    const box = $("message");
    box.className = "message notice";
    box.textContent = text;
    box.hidden = !text;
  }

  async function step(k) {
    if (!steps.has(k)) {
      const body = { ...log.replay, moves: log.replay.moves.slice(0, k) };
      if (k <= moves.length) delete body.end;
      steps.set(k, (async () => {
        const env = await Api.replay(log.game, body);
        const seen = await Api.view(log.game, env.state, env.state_tag, null);
        const hands = env.state.sealed ? undefined : env.state.hands;  // a sealed state keeps them in its box
        return { version: k, view: { ...seen.view, ...(hands ? { hands } : {}) }, to_act: env.to_act,
                 finished: env.finished, result: env.result, events: env.events };
      })());
    }
    return steps.get(k);
  }

  function describe(k) {
    if (k === 0) return "The deal, before the first move.";
    const entry = k <= moves.length ? moves[k - 1] : ending();
    const who = TableView.seatName(ctx, entry.seat);
    if (k > moves.length) {
      return `The end: ${who}: ${Words.words(entry.type || log.replay.end.by)}${entry.reason ? ` (${Words.words(entry.reason)})` : ""}`;
    }
    return `Move ${k} of ${moves.length}: ${who}: ${TableView.moveLabel(entry.move, ctx.faces)}`;
  }

  function ending() {
    const by = log.replay.end.by;
    return log.entries.filter((e) => e.type === by && e.ends !== false).pop() || { seat: log.replay.end.seat, type: by };
  }

  async function go(k) {
    at = Math.max(0, Math.min(last, k));
    $("slider").value = at;
    $("step").textContent = describe(at);
    try {
      const answer = await step(at);
      if (answer.version !== at) return;  // a later click won
      TableView.draw($("table"), ctx, answer);
      const settled = (answer.events || []).filter((e) => e.type === "deal_settled" && Array.isArray(e.changes));
      if (settled.length) $("table").prepend(...settled.map((e) => Facts.settlement(ctx, e)));
      const events = (answer.events || []).map((e) => Words.words(e.type));
      $("caused").textContent = at && events.length ? `It caused: ${events.join(", ")}.` : "";
      document.body.dataset.step = at;
      if (at < last) step(at + 1).catch(() => null);
    } catch (err) {
      say(err.message);
    }
  }

  async function start() {
    try {
      log = await Api.log(sid);
    } catch (err) {
      say(err.message);
      return;
    }
    const info = await Api.game(log.game).catch(() => null);
    $("title").textContent = `${info ? info.name : log.game}: replay`;
    $("back").href = `/table/${encodeURIComponent(sid)}${location.search}`;
    if (!log.finished || !log.replay) {
      say(`The match is not over (${log.entries.length} moves so far): its replay opens when it ends, with the seed.`);
      return;
    }
    ctx = { game: log.game, names: (query.get("names") || "").split(",").map((n) => n.trim().slice(0, 24)),
            faces: Cards.facesFor(log.game, query.get("faces") || localStorage.getItem(`faces:${log.game}`) || ""),
            mySeat: null, players: log.players };
    const slider = $("slider");
    moves = log.entries.filter((e) => (e.type || "move") === "move");
    last = moves.length + (log.replay.end ? 1 : 0);
    slider.max = last;
    slider.addEventListener("input", () => go(Number(slider.value)));
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(at - 1));
    $("next").addEventListener("click", () => go(at + 1));
    $("last").addEventListener("click", () => go(last));
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowLeft") go(at - 1);
      if (e.key === "ArrowRight") go(at + 1);
    });
    $("controls").hidden = false;
    go(Number(query.get("step") || 0));
  }

  start();
})();
