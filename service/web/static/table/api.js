// Every call the table pages make to the service, and nothing else. The pages use only these functions, so
// another client (a generated or bundled one) can replace this file's body as long as it keeps them:
//
//   Api.session(sid, token)           GET  /v1/sessions/{sid}            -> the seat's answer (token null: spectator)
//   Api.move(sid, token, move, version) POST /v1/sessions/{sid}/moves    -> the answer after the move
//   Api.end(sid, token, what)         POST /v1/sessions/{sid}/{what}     what: "concede" or "abort" -> the answer
//   Api.log(sid)                      GET  /v1/sessions/{sid}/log        -> the public log
//   Api.game(game)                    GET  /v1/games/{game}              -> the catalogue entry
//   Api.replay(game, body)            POST /v1/games/{game}/replay       -> the envelope after body.moves
//   Api.view(game, state, tag, seat)  POST /v1/games/{game}/view         -> {view} (seat null: spectator)
//   Api.follow(sid, token, handlers)  GET  /v1/sessions/{sid}/events     -> {stop()}; handlers: view, gap, end,
//                                     gone, error, status(up)
//   Api.Problem                       the error every call throws for a non-2xx answer: .status, .body
//                                     (the problem+json), .message (its detail)
//
// All return promises but follow. EventSource cannot send an Authorization header, so the stream is read with
// fetch and the text/event-stream parsed here; the token goes as a header on every request, never into a URL.
"use strict";

const Api = (() => {
  class Problem extends Error {
    constructor(status, body) {
      super((body && body.detail) || `HTTP ${status}`);
      this.status = status;
      this.body = body || {};
    }
  }

  async function json(url, { token = null, method = "GET", body = undefined } = {}) {
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const resp = await fetch(url, { method, headers, cache: "no-store",
                                    body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await resp.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
    if (!resp.ok) throw new Problem(resp.status, data);
    return data;
  }

  // Follows GET /v1/sessions/{id}/events until the match ends or `stop()` is called, reconnecting with
  // Last-Event-ID (the stream resends what was missed). handlers: {view, gap, end, error, status}.
  function follow(sid, token, handlers) {
    let lastId = null;
    let retryMs = 2000;
    let stopped = false;
    let controller = null;

    async function once() {
      controller = new AbortController();
      const headers = { Accept: "text/event-stream" };
      if (token) headers.Authorization = `Bearer ${token}`;
      if (lastId !== null) headers["Last-Event-ID"] = String(lastId);
      const resp = await fetch(`/v1/sessions/${encodeURIComponent(sid)}/events`,
                               { headers, cache: "no-store", signal: controller.signal });
      if (resp.status === 204) return "over";
      if (!resp.ok) {
        let body = null;
        try { body = await resp.json(); } catch (_) { body = null; }
        throw new Problem(resp.status, body);
      }
      handlers.status && handlers.status(true);
      const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return "closed";
        buffer += value;
        let cut;
        while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, "");
          if (dispatch(block) === "end") { reader.cancel().catch(() => null); return "over"; }
        }
      }
    }

    function dispatch(block) {
      let event = "message";
      const data = [];
      let id = null;
      for (const line of block.split(/\r?\n/)) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
        else if (field === "id") id = value;
        else if (field === "retry" && /^\d+$/.test(value)) retryMs = Number(value);
      }
      if (id !== null && /^\d+$/.test(id)) lastId = Number(id);
      if (!data.length) return event;
      const payload = JSON.parse(data.join("\n"));
      const handler = handlers[event];
      if (handler) handler(payload);
      return event;
    }

    (async () => {
      while (!stopped) {
        let outcome;
        try {
          outcome = await once();
        } catch (err) {
          if (stopped) return;
          handlers.status && handlers.status(false);
          if (err instanceof Problem && [400, 401, 403, 404].includes(err.status)) {
            handlers.error && handlers.error(err);
            return;
          }
          outcome = "retry";
        }
        if (outcome === "over") { handlers.status && handlers.status(false); return; }
        await new Promise((r) => setTimeout(r, retryMs));
      }
    })();

    return { stop() { stopped = true; if (controller) controller.abort(); } };
  }

  const path = (...parts) => parts.map(encodeURIComponent).join("/");

  const session = (sid, token) => json(`/v1/sessions/${path(sid)}`, { token });
  const move = (sid, token, m, version) => json(`/v1/sessions/${path(sid)}/moves`,
                                                { token, method: "POST", body: { move: m, version } });
  const end = (sid, token, what) => json(`/v1/sessions/${path(sid, what)}`, { token, method: "POST", body: {} });
  const log = (sid) => json(`/v1/sessions/${path(sid)}/log`);
  const game = (gid) => json(`/v1/games/${path(gid)}`);
  const replay = (gid, body) => json(`/v1/games/${path(gid)}/replay`, { method: "POST", body });
  const view = (gid, state, tag, seat) => json(`/v1/games/${path(gid)}/view`,
                                               { method: "POST", body: { state, state_tag: tag || null, seat } });

  return { session, move, end, log, game, replay, view, follow, Problem };
})();
