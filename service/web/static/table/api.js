// Talking to the service: JSON requests, and the session's event stream read with fetch.
// EventSource cannot send an Authorization header, so a seat's page reads the text/event-stream itself and
// sends its token as a header like every other request; the token never goes into a URL.
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

  return { json, follow, Problem };
})();
