// The Card Referee client: the contract's types (generated from openapi.yaml into schema.ts by
// openapi-typescript), openapi-fetch for the calls, and what an app needs around them: one game's moves and
// options checked by the compiler, problems as typed errors, safe retries, and the event stream as an async
// iterator that resumes with Last-Event-ID.
import createFetchClient from "openapi-fetch";
import type { components, paths } from "./schema.js";
import { parseEventStream, typed, type SessionEvent } from "./events.js";
import { DEFAULT_RETRY, retryingFetch, sleep, unwrap, type RetryPolicy } from "./problems.js";

export type { components, paths } from "./schema.js";
export type { SessionEvent } from "./events.js";
export { parseEventStream } from "./events.js";
export { ProblemError, DEFAULT_RETRY, type Problem, type ProblemCode, type RetryPolicy } from "./problems.js";

export type Schemas = components["schemas"];
/** `three_card_loo` -> `ThreeCardLoo`: a game id as the prefix of its schemas' names in the contract. */
type Camel<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Capitalize<Head>}${Camel<Tail>}` : Capitalize<S>;
type Of<G extends GameId, Suffix extends string> = Schemas[`${Camel<G>}${Suffix}` & keyof Schemas];

/** Every game the service referees. */
export type GameId = Schemas["SessionCreate"]["game"];
/** A move of game G, as its Move schema has it: a wrong action or parameter does not compile. */
export type MoveOf<G extends GameId> = Of<G, "Move">;
export type OptionsOf<G extends GameId> = Of<G, "Options">;
export type DealSpecOf<G extends GameId> = Of<G, "DealSpec">;
export type ReplayOf<G extends GameId> = Of<G, "ReplayRequest">;
/** The answer to a new match, a move or a replay of game G: its legal_moves are MoveOf<G>. */
export type EnvelopeOf<G extends GameId> = Of<G, "Envelope"> & Schemas["Envelope"];
export type SessionView = Schemas["SessionView"];
export type SessionCreated = Schemas["SessionCreated"];
export type SessionLog = Schemas["SessionLog"];
export type State = Schemas["State"];

/** A session's view for game G: its legal moves typed as G's moves. */
export type SessionViewOf<G extends GameId> = SessionView & { legal_moves: MoveOf<G>[] };
export type SessionEventOf<G extends GameId> =
  | { event: "view"; id: number; data: SessionViewOf<G> }
  | Exclude<SessionEvent, { event: "view" }>;

export interface ClientOptions {
  /** The service's address; "" (the default) for the page's own origin in a browser. */
  baseUrl?: string;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
  /** Retries of safe requests (reads, stateless calls, moves with an Idempotency-Key). */
  retry?: Partial<RetryPolicy>;
}

export type SessionSpec<G extends GameId> = Omit<Schemas["SessionCreate"], "game" | "options"> & {
  options?: OptionsOf<G> | null;
};

export interface MoveOptions {
  /** The version the move was decided on (409 version_conflict when the session has moved on). */
  version?: number;
  /** Sent again on every retry, so the move is made once; drawn when absent. */
  idempotencyKey?: string;
}

export interface EventOptions {
  /** Resume after this version (the last event id received). */
  lastEventId?: number;
  /** Stops the stream. */
  signal?: AbortSignal;
  /** Reconnect (with Last-Event-ID) when the service closes the stream before the match ends; default true. */
  reconnect?: boolean;
}

export class CardReferee {
  /** The typed openapi-fetch client itself, for any call of the contract. */
  readonly api: ReturnType<typeof createFetchClient<paths>>;

  constructor(options: ClientOptions = {}) {
    const inner = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.api = createFetchClient<paths>({
      baseUrl: options.baseUrl ?? "",
      fetch: retryingFetch(inner, { ...DEFAULT_RETRY, ...options.retry }),
    });
  }

  async games(): Promise<Schemas["GameList"]> {
    return unwrap(await this.api.GET("/v1/games"));
  }

  async game(game: GameId): Promise<Schemas["GameSummary"]> {
    return unwrap(await this.api.GET("/v1/games/{game}", { params: { path: { game } } }));
  }

  async newMatch<G extends GameId>(game: G, spec: DealSpecOf<G> = {} as DealSpecOf<G>): Promise<EnvelopeOf<G>> {
    const body = spec as Schemas["DealSpec"];
    return unwrap(await this.api.POST("/v1/games/{game}/new", { params: { path: { game } }, body })) as EnvelopeOf<G>;
  }

  /** Adjudicate `move` on `state`: the next envelope, or a ProblemError (code illegal_move, with a reason). */
  async move<G extends GameId>(game: G, state: State, move: MoveOf<G>, stateTag?: string): Promise<EnvelopeOf<G>> {
    const body = { state, move: move as Schemas["Move"], ...(stateTag === undefined ? {} : { state_tag: stateTag }) };
    return unwrap(await this.api.POST("/v1/games/{game}/move", { params: { path: { game } }, body })) as EnvelopeOf<G>;
  }

  /** `move` on an envelope the service gave: its state and state tag are sent back unchanged. */
  async play<G extends GameId>(game: G, envelope: EnvelopeOf<G>, move: MoveOf<G>): Promise<EnvelopeOf<G>> {
    return this.move(game, envelope.state, move, envelope.state_tag);
  }

  async replay<G extends GameId>(game: G, replay: ReplayOf<G>): Promise<EnvelopeOf<G>> {
    const body = replay as Schemas["ReplayRequest"];
    return unwrap(await this.api.POST("/v1/games/{game}/replay", { params: { path: { game } }, body })) as EnvelopeOf<G>;
  }

  async legalMoves<G extends GameId>(game: G, state: State, seat?: number | null): Promise<MoveOf<G>[]> {
    const body = { state, seat: seat ?? null };
    const answer = unwrap(await this.api.POST("/v1/games/{game}/legal-moves", { params: { path: { game } }, body }));
    return answer.legal_moves as MoveOf<G>[];
  }

  async view(game: GameId, state: State, seat: number | null): Promise<Schemas["SeatView"]> {
    return unwrap(await this.api.POST("/v1/games/{game}/view", { params: { path: { game } }, body: { state, seat } }));
  }

  /** Start a session of game G; `seat(created, n)` or `session(id, token)` then plays it. */
  async createSession<G extends GameId>(game: G, spec: SessionSpec<G> = {}): Promise<SessionCreated> {
    const body = { ...spec, game } as Schemas["SessionCreate"];
    return unwrap(await this.api.POST("/v1/sessions", { body }));
  }

  /** A session as seat `seat` of a session just created (its token), or as a spectator with `seat` null. */
  seat<G extends GameId>(game: G, created: SessionCreated, seat: number | null): Session<G> {
    const token = seat === null ? undefined : created.seats.find((s) => s.seat === seat)?.token;
    if (seat !== null && token === undefined) throw new RangeError(`the session has no seat ${seat}`);
    return new Session<G>(this, game, created.id, token);
  }

  /** A session by its id, with a seat's token (or none: a spectator). */
  session<G extends GameId>(game: G, id: string, token?: string): Session<G> {
    return new Session<G>(this, game, id, token);
  }
}

/** One session as one seat (with its token) or as a spectator (without one). */
export class Session<G extends GameId> {
  constructor(readonly client: CardReferee, readonly game: G, readonly id: string, readonly token?: string) {}

  private headers(): Record<string, string> {
    return this.token === undefined ? {} : { Authorization: `Bearer ${this.token}` };
  }

  /** This seat's view now, or (with `after` and `waitSeconds`) once the version is above `after`. */
  async view(after?: number, waitSeconds?: number): Promise<SessionViewOf<G>> {
    const query = after === undefined ? {} : { after, wait: waitSeconds ?? 0 };
    const answer = await this.client.api.GET("/v1/sessions/{id}", {
      params: { path: { id: this.id }, query }, headers: this.headers(),
    });
    return ofGame<G>(unwrap(answer));
  }

  /** Make a move; retried safely with one Idempotency-Key. */
  async move(move: MoveOf<G>, options: MoveOptions = {}): Promise<SessionViewOf<G>> {
    const key = options.idempotencyKey ?? newKey();
    const answer = await this.client.api.POST("/v1/sessions/{id}/moves", {
      params: { path: { id: this.id }, header: { "Idempotency-Key": key } },
      body: { move: move as Schemas["Move"], version: options.version ?? null }, headers: this.headers(),
    });
    return ofGame<G>(unwrap(answer));
  }

  async concede(reason?: string): Promise<SessionViewOf<G>> {
    const answer = await this.client.api.POST("/v1/sessions/{id}/concede", {
      params: { path: { id: this.id } }, body: { reason: reason ?? null }, headers: this.headers(),
    });
    return ofGame<G>(unwrap(answer));
  }

  async abort(reason?: string): Promise<SessionViewOf<G>> {
    const answer = await this.client.api.POST("/v1/sessions/{id}/abort", {
      params: { path: { id: this.id } }, body: { reason: reason ?? null }, headers: this.headers(),
    });
    return ofGame<G>(unwrap(answer));
  }

  async log(): Promise<SessionLog> {
    return unwrap(await this.client.api.GET("/v1/sessions/{id}/log", { params: { path: { id: this.id } } }));
  }

  /** The event stream, each event as it arrives. The service closes a stream after EVENTS_MAX seconds: the
   * iterator then reconnects with Last-Event-ID and goes on, until the match ends (`end`), the session is
   * gone, or `signal` aborts. */
  async *events(options: EventOptions = {}): AsyncGenerator<SessionEventOf<G>> {
    let last = options.lastEventId;
    for (;;) {
      const answer = await this.client.api.GET("/v1/sessions/{id}/events", {
        params: { path: { id: this.id }, header: last === undefined ? {} : { "Last-Event-ID": String(last) } },
        headers: { ...this.headers(), Accept: "text/event-stream" }, parseAs: "stream", signal: options.signal,
      });
      const { response } = answer;
      if (response.status === 204) return; // the match is over and we have its last event
      const body = unwrap<ReadableStream<Uint8Array> | null>({ data: answer.data, error: answer.error, response });
      if (body === null) return;
      let closing = false;
      for await (const raw of parseEventStream(body)) {
        const event = typed(raw);
        if (event === undefined) continue;
        if (event.event === "view") last = event.id;
        closing = event.event === "end" || event.event === "gone";
        yield event as SessionEventOf<G>;
        if (closing) return;
      }
      if (options.reconnect === false || options.signal?.aborted) return;
      await sleep(50);
    }
  }
}

/** A fresh Idempotency-Key: 128 random bits (getRandomValues, unlike randomUUID, also in a page served over
 * plain http). */
function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A session's view as game G's: the service lists only G's moves in it (the contract's per-game schemas
 * type them; a session's operations are shared by every game, so their schema is the generic one). */
function ofGame<G extends GameId>(view: SessionView): SessionViewOf<G> {
  return view as unknown as SessionViewOf<G>;
}
