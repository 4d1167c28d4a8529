// Every call the table pages make to the service, and nothing else, spoken through the TypeScript client that
// apps use (clients/typescript, served bundled at /client/card-referee.js as the global CardRefereeClient), so
// the pages and apps reach the service the same way. The pages use only these functions:
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
// All return promises but follow. The client sends the token as a header on every request (never in a URL) and
// reads the event stream with fetch, since EventSource cannot send an Authorization header.
"use strict";

const Api = (() => {
  const { CardReferee, ProblemError } = CardRefereeClient;
  const client = new CardReferee();

  class Problem extends Error {
    constructor(status, body) {
      super((body && body.detail) || `HTTP ${status}`);
      this.status = status;
      this.body = body || {};
    }
  }

  // The client's typed problems become this page's Problem; anything else (the network) is thrown as it is.
  const asProblem = (err) => (err instanceof ProblemError ? new Problem(err.status, err.problem) : err);
  const call = (promise) => promise.catch((err) => { throw asProblem(err); });

  // A session's calls are the same for every game; the client types them by game, which a page need not know.
  const seat = (sid, token) => client.session(null, sid, token || undefined);

  const session = (sid, token) => call(seat(sid, token).view());
  const move = (sid, token, m, version) => call(seat(sid, token).move(m, { version }));
  const end = (sid, token, what) => call(what === "concede" ? seat(sid, token).concede() : seat(sid, token).abort());
  const log = (sid) => call(seat(sid).log());
  const game = (gid) => call(client.game(gid));
  const replay = (gid, body) => call(client.replay(gid, body));

  async function view(gid, state, tag, seatNumber) {
    const answer = await client.api.POST("/v1/games/{game}/view", {
      params: { path: { game: gid } }, body: { state, state_tag: tag || null, seat: seatNumber },
    });
    if (!answer.response.ok) throw new Problem(answer.response.status, answer.error);
    return answer.data;
  }

  // Follows the event stream until the match ends or stop() is called. The client's iterator resumes with
  // Last-Event-ID when the service closes a stream; a dropped connection is retried here from the last version.
  function follow(sid, token, handlers) {
    const controller = new AbortController();
    const status = (up) => handlers.status && handlers.status(up);
    let lastEventId;
    let stopped = false;

    async function once() {
      let connected = false;
      for await (const ev of seat(sid, token).events({ lastEventId, signal: controller.signal })) {
        if (!connected) { connected = true; status(true); }
        if (ev.event === "view") lastEventId = ev.id;
        const handler = handlers[ev.event];
        if (handler) handler(ev.data);
        if (ev.event === "end" || ev.event === "gone") return;
      }
    }

    (async () => {
      while (!stopped) {
        try {
          await once();
          status(false);
          return;
        } catch (err) {
          if (stopped) return;
          status(false);
          const problem = asProblem(err);
          if (problem instanceof Problem && [400, 401, 403, 404].includes(problem.status)) {
            if (handlers.error) handlers.error(problem);
            return;
          }
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    })();

    return { stop() { stopped = true; controller.abort(); } };
  }

  return { session, move, end, log, game, replay, view, follow, Problem };
})();
