// The tournament page: reads GET /v1/tournaments/{id} and reads it again after every event of the tournament's
// public event stream (EventSource reconnects by itself and sends Last-Event-ID). Every value goes into the
// DOM as text, never as HTML. body's data-live, data-status and data-refreshes say what the page shows (the
// browser test reads them).
"use strict";

(() => {
  const tid = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
  const api = `/v1/tournaments/${encodeURIComponent(tid)}`;
  const EVENTS = ["round_started", "match_started", "match_ended", "standings_changed", "tournament_finished",
                  "paused", "resumed", "cancelled", "entry_withdrawn", "preflight"];
  const OVER = new Set(["finished", "cancelled"]);
  const $ = (id) => document.getElementById(id);
  let names = new Map();       // bot id -> name
  let loading = false;
  let again = false;
  let stream = null;
  let refreshes = 0;
  let missing = false;

  function el(tag, text, cls) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }

  function name(bot) { return names.get(bot) || bot; }

  function number(value) {
    if (typeof value !== "number") return value === undefined || value === null ? "" : String(value);
    return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0$/, "");
  }

  function duration(seconds) {
    if (seconds === null || seconds === undefined) return "time left unknown yet";
    const s = Math.max(0, Math.round(seconds));
    return s < 90 ? `about ${s} s left` : `about ${Math.round(s / 60)} min left`;
  }

  function rating(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "object") return number(value.ordinal);
    return number(value);
  }

  function showMessage(text) {
    const box = $("message");
    box.textContent = text || "";
    box.hidden = !text;
  }

  function renderProgress(t) {
    const p = t.progress || { done: 0, total: 0, eta_s: null };
    $("bar").max = Math.max(1, p.total);
    $("bar").value = p.done;
    const left = OVER.has(t.status) ? t.status : duration(p.eta_s);
    $("progress").textContent = `${p.done} of ${p.total} matches played, ${left}`;
  }

  function renderStandings(rows) {
    const body = $("standings").tBodies[0];
    body.replaceChildren(...(rows || []).map((row) => {
      const tr = el("tr");
      tr.dataset.bot = row.bot;
      for (const value of [row.rank, name(row.bot), number(row.points), number(row.duplicate), number(row.payoff),
                           number(row.buchholz), row.matches, row.byes, row.forfeits, rating(row.rating)]) {
        tr.append(el("td", value));
      }
      return tr;
    }));
  }

  function resultText(result) {
    if (!result) return "playing";
    const pay = Array.isArray(result.payoffs) ? result.payoffs.join(" : ") : "";
    const how = result.ended_by && result.ended_by !== "play" ? ` (${result.ended_by})` : "";
    return `${pay}${how}`;
  }

  function currentRound(rounds) {
    if (!rounds || !rounds.length) return null;
    return rounds.find((r) => (r.tables || []).some((t) => !t.result)) || rounds[rounds.length - 1];
  }

  function renderRound(t) {
    const round = currentRound(t.rounds);
    $("round-title").textContent = round ? `Round ${round.index}: ${round.game}` : "No round yet";
    $("tables").replaceChildren(...(round ? round.tables : []).map((table) => {
      const li = el("li");
      li.dataset.match = table.match;
      li.append(el("span", (table.bots || []).map(name).join(" - ")));
      if (table.session) {
        const link = el("a", "table", "table-link");
        link.href = table.table || `/table/${encodeURIComponent(table.session)}`;
        li.append(" ", link);
      }
      li.append(el("span", resultText(table.result), "result"));
      return li;
    }));
    const byes = round && round.byes && round.byes.length ? round.byes : [];
    $("byes").textContent = byes.length ? `Sitting out: ${byes.map(name).join(", ")}` : "";
  }

  function renderEntries(entries) {
    $("entries").replaceChildren(...(entries || []).map((e) => {
      const li = el("li", null, e.status === "withdrawn" ? "withdrawn" : "");
      li.dataset.bot = e.bot;
      li.append(el("span", null, `presence ${e.connected ? "on" : "off"}`), el("span", e.name));
      li.title = e.connected ? "connected" : "not connected";
      return li;
    }));
  }

  function renderIncidents(incidents) {
    const items = (incidents || []).slice(-30).reverse();
    $("incidents").replaceChildren(...items.map((i) => {
      const who = i.bot !== undefined ? name(i.bot) : "";
      return el("li", [who, i.kind, i.match, i.detail].filter((x) => x !== undefined && x !== "").join(": "));
    }));
  }

  function render(t) {
    names = new Map((t.entries || []).map((e) => [e.bot, e.name]));
    document.title = `${t.name} - Card Referee`;
    $("title").textContent = t.name;
    $("status").textContent = t.status;
    $("records").href = `${api}/records`;
    $("csv").href = `${api}/standings?format=csv`;
    $("md").href = `${api}/standings?format=md`;
    renderProgress(t);
    renderStandings(t.standings);
    renderRound(t);
    renderEntries(t.entries);
    renderIncidents(t.incidents);
    document.body.dataset.status = t.status;
    document.body.dataset.done = String((t.progress || {}).done || 0);
    document.body.dataset.refreshes = String(++refreshes);
  }

  async function load() {
    if (loading) { again = true; return; }
    loading = true;
    try {
      do {
        again = false;
        const resp = await fetch(api, { headers: { Accept: "application/json" }, cache: "no-store" });
        const body = await resp.json().catch(() => null);
        if (!resp.ok) {
          showMessage((body && body.detail) || `HTTP ${resp.status}`);
          if (resp.status === 404) { missing = true; stop(); }
          return;
        }
        showMessage("");
        render(body);
        if (OVER.has(body.status)) stop();
      } while (again);
    } catch (err) {
      showMessage(`The service did not answer: ${err.message}`);
    } finally {
      loading = false;
    }
  }

  function live(on) {
    $("live").className = `live ${on ? "on" : "off"}`;
    document.body.dataset.live = String(on);
  }

  function stop() {
    if (stream) stream.close();
    stream = null;
    live(false);
  }

  function follow() {
    stream = new EventSource(`${api}/events`);
    stream.onopen = () => { live(true); load(); };   // also after a reconnect: catch up on what was missed
    stream.onerror = () => live(false);
    for (const name of EVENTS) stream.addEventListener(name, load);
  }

  load().then(() => { if (!missing && !OVER.has(document.body.dataset.status)) follow(); });
})();
