import assert from "node:assert/strict";
import { test } from "node:test";
import createFetchClient from "openapi-fetch";
import { ProblemError, type MoveOf, type paths } from "../src/index.js";
import { BASE_URL, client, playOut } from "./support.js";

test("a whole Femkort match, then an illegal move refused with a typed problem", async () => {
  const referee = client();
  const deal = await referee.newMatch("femkort", { players: 3, seed: "c0ffee" });
  assert.deepEqual(deal.to_act, [1]);
  const wrong: MoveOf<"femkort"> = { seat: 2, action: "play", card: "5S" };
  const led = await referee.play("femkort", deal, { seat: 1, action: "play", card: "TH" });
  await assert.rejects(referee.play("femkort", led, wrong), (err: unknown) => {
    assert.ok(err instanceof ProblemError);
    assert.equal(err.status, 422);
    assert.equal(err.code, "illegal_move");
    assert.equal(err.reason, "must_follow_suit");
    return true;
  });
  const { envelope, moves } = await playOut(referee, "femkort", led);
  assert.equal(envelope.finished, true);
  assert.ok(moves > 0);
  assert.equal(envelope.result?.payoffs.reduce((a, b) => a + b, 0), 0);
});

test("a Klaberjass deal through the generated types alone (openapi-fetch on the game's own path)", async () => {
  const api = createFetchClient<paths>({ baseUrl: BASE_URL });
  const dealt = await api.POST("/v1/games/klaberjass/new", { body: { players: 2, seed: "5eed" } });
  assert.equal(dealt.response.status, 201);
  let envelope = dealt.data!;
  let settled = false;
  while (!settled) {
    const move: MoveOf<"klaberjass"> = envelope.legal_moves[0];
    const answer = await api.POST("/v1/games/klaberjass/move", {
      body: { state: envelope.state, state_tag: envelope.state_tag, move },
    });
    assert.equal(answer.response.status, 200, JSON.stringify(answer.error));
    envelope = answer.data!;
    settled = envelope.events.some((event) => event.type === "deal_settled");
  }
  assert.ok(envelope.state.deal_no !== undefined);
});

test("a malformed body is a problem too: the service's own sentence and code", async () => {
  const referee = client();
  await assert.rejects(referee.newMatch("femkort", { players: 99 }), (err: unknown) => {
    assert.ok(err instanceof ProblemError);
    assert.equal(err.status, 422);
    assert.ok(err.detail.length > 0);
    return true;
  });
});

test("a whole Femkort match through the generated types alone, and a spectator's view without a token", async () => {
  const api = createFetchClient<paths>({ baseUrl: BASE_URL });
  let envelope = (await api.POST("/v1/games/femkort/new", { body: { players: 4, seed: "beef" } })).data!;
  while (!envelope.finished) {
    const answer = await api.POST("/v1/games/femkort/move", {
      body: { state: envelope.state, state_tag: envelope.state_tag, move: envelope.legal_moves[0] },
    });
    assert.equal(answer.response.status, 200, JSON.stringify(answer.error));
    envelope = answer.data!;
  }
  assert.equal(envelope.result?.ranking.length, 4);

  const created = (await api.POST("/v1/sessions", { body: { game: "femkort", players: 3 } })).data!;
  const spectator = await api.GET("/v1/sessions/{id}", { params: { path: { id: created.id } } });
  assert.equal(spectator.response.status, 200);
  assert.deepEqual(spectator.data!.legal_moves, []);
  assert.equal(spectator.data!.seat ?? null, null); // the spectator's view: no seat's
});
