import assert from "node:assert/strict";
import { test } from "node:test";
import { CardReferee, ProblemError, type Session, type SessionEventOf } from "../src/index.js";
import { retryingFetch } from "../src/problems.js";
import { BASE_URL, client } from "./support.js";

/** Every seat plays its first legal move in turn until the match ends (a bot loop). */
async function playSession(seats: Session<"femkort">[]): Promise<number> {
  let version = 0;
  for (;;) {
    const views = await Promise.all(seats.map((seat) => seat.view()));
    const turn = views.find((view) => view.legal_moves.length > 0);
    if (views[0].finished || turn === undefined) return version;
    const answer = await seats[turn.seat!].move(turn.legal_moves[0], { version: turn.version });
    version = answer.version;
  }
}

test("a Femkort session: a bot loop, a spectator without a token, the event stream as it comes", async () => {
  const referee = client();
  const created = await referee.createSession("femkort", { players: 3, options: { deals: 2 } });
  const seats = [0, 1, 2].map((n) => referee.seat("femkort", created, n));
  const spectator = referee.seat("femkort", created, null);

  const watched: SessionEventOf<"femkort">[] = [];
  const first = new Promise<void>((resolve, reject) => {
    (async () => {
      for await (const event of spectator.events()) {
        watched.push(event);
        if (watched.length === 1) resolve();
      }
    })().catch(reject);
  });
  await first; // the stream is open and has sent the current view before anyone moves
  assert.equal(watched[0].event, "view");

  const last = await playSession(seats);
  const view = await spectator.view();
  assert.equal(view.finished, true);
  assert.equal(view.seat ?? null, null);
  assert.equal(view.version, last);
  assert.deepEqual(view.legal_moves, []);

  while (watched.at(-1)?.event !== "end") await new Promise((r) => setTimeout(r, 20));
  const versions = watched.flatMap((e) => (e.event === "view" ? [e.id] : []));
  assert.deepEqual(versions, Array.from({ length: last + 1 }, (_, i) => i)); // every version, in order

  // resuming after an event id sends only what came later
  const resumed: number[] = [];
  for await (const event of spectator.events({ lastEventId: last - 2 })) {
    if (event.event === "view") resumed.push(event.id);
  }
  assert.deepEqual(resumed, [last - 1, last]);
});

test("a retried move with its Idempotency-Key is made once; a stale version is a typed 409", async () => {
  const referee = client();
  const created = await referee.createSession("femkort", { players: 3 });
  const seat1 = referee.seat("femkort", created, 1);
  const view = await seat1.view();
  const move = view.legal_moves[0];
  const once = await seat1.move(move, { idempotencyKey: "k-1" });
  const again = await seat1.move(move, { idempotencyKey: "k-1" });
  assert.equal(again.version, once.version);
  assert.equal(once.version, 1);
  const seat2 = referee.seat("femkort", created, 2);
  const next = (await seat2.view()).legal_moves[0];
  await assert.rejects(seat2.move(next, { version: 0 }), (err: unknown) => {
    assert.ok(err instanceof ProblemError);
    assert.equal(err.code, "version_conflict");
    return true;
  });
});

test("a 503 is retried for a keyed move, with the same key, but a session's creation is not", async () => {
  const sent: Request[] = [];
  let failures = 1;
  const flaky = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    sent.push(request);
    if (failures-- > 0) return new Response(null, { status: 503, headers: { "Retry-After": "0" } });
    return fetch(request);
  };
  const referee = new CardReferee({ baseUrl: BASE_URL, fetch: flaky as typeof fetch });
  failures = 0;
  const created = await referee.createSession("femkort", { players: 3 });
  const seat1 = referee.seat("femkort", created, 1);
  const move = (await seat1.view()).legal_moves[0];
  sent.length = 0;
  failures = 1;
  const answer = await seat1.move(move);
  assert.equal(answer.version, 1);
  assert.equal(sent.length, 2);
  assert.equal(sent[0].headers.get("Idempotency-Key"), sent[1].headers.get("Idempotency-Key"));

  failures = 1;
  const once = retryingFetch(flaky as typeof fetch, { retries: 3, maxDelayMs: 10 });
  const refused = await once(new Request(`${BASE_URL}/v1/sessions`, { method: "POST", body: "{}" }));
  assert.equal(refused.status, 503);
});

test("the stream of a session that does not exist is a typed 404, not an empty iteration", async () => {
  const ghost = client().session("femkort", "A".repeat(22));
  await assert.rejects(ghost.events().next(), (err: unknown) => {
    assert.ok(err instanceof ProblemError);
    assert.equal(err.status, 404);
    assert.equal(err.code, "session_not_found");
    return true;
  });
});
