// The served instance the tests play against: CARD_REFEREE_URL (e.g. http://127.0.0.1:8000, ./deploy/serve.sh).
import { CardReferee, type EnvelopeOf, type GameId, type MoveOf } from "../src/index.js";

export const BASE_URL = process.env.CARD_REFEREE_URL ?? "http://127.0.0.1:8000";

export function client(): CardReferee {
  return new CardReferee({ baseUrl: BASE_URL });
}

/** Plays the first legal move until `done` says stop (or the match ends); returns the last envelope and how
 * many moves were made. */
export async function playOut<G extends GameId>(
  referee: CardReferee, game: G, start: EnvelopeOf<G>, done: (envelope: EnvelopeOf<G>) => boolean = () => false,
): Promise<{ envelope: EnvelopeOf<G>; moves: number }> {
  let envelope = start;
  let moves = 0;
  while (!envelope.finished && !done(envelope)) {
    envelope = await referee.play(game, envelope, envelope.legal_moves[0] as MoveOf<G>);
    moves += 1;
  }
  return { envelope, moves };
}
