// Problems (application/problem+json) as typed errors, and the retries that are safe to make.
import type { components } from "./schema.js";

export type Problem = components["schemas"]["Problem"];
export type ProblemCode = Problem["code"];

/** A refusal by the service: `code` (stable, e.g. "illegal_move"), `reason` for an illegal move
 * (e.g. "must_follow_suit"), `detail` (a sentence a player understands) and the whole problem body. */
export class ProblemError extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly reason: string | undefined;
  readonly detail: string;
  readonly problem: Problem;

  constructor(status: number, problem: Problem) {
    super(problem.detail);
    this.name = "ProblemError";
    this.status = status;
    this.code = problem.code;
    this.reason = problem.reason;
    this.detail = problem.detail;
    this.problem = problem;
  }
}

/** The answer's body, or a ProblemError for a refusal (any non-2xx answer). */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  const { response } = result;
  if (response.ok) return result.data as T;
  throw new ProblemError(response.status, asProblem(response, result.error));
}

function asProblem(response: Response, body: unknown): Problem {
  if (body !== null && typeof body === "object" && "code" in body && "detail" in body) return body as Problem;
  return {
    type: "about:blank", title: response.statusText || "Error", status: response.status,
    detail: typeof body === "string" && body ? body : `HTTP ${response.status}`, code: "internal_error",
  };
}

export interface RetryPolicy {
  /** Further attempts after the first (0: none). */
  retries: number;
  /** The longest wait between attempts, ms (a Retry-After above it is cut to it). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 3, maxDelayMs: 2000 };

/** Whether sending `request` again cannot do anything twice: reads, the stateless adjudication (pure), and a
 * session move that carries an Idempotency-Key (the service answers a repeat with the first answer). */
export function safeToRetry(request: Request): boolean {
  const path = new URL(request.url).pathname; // a Request's url is always absolute
  if (request.method === "GET") return true;
  if (request.method !== "POST") return false;
  if (path.startsWith("/v1/games/")) return true;
  return path.endsWith("/moves") && request.headers.has("Idempotency-Key");
}

/** A fetch that tries a safe request again after a network failure, a 503 (store unavailable) or a 429
 * (quota), waiting what Retry-After says (cut to the policy's longest wait). */
export function retryingFetch(inner: typeof fetch, policy: RetryPolicy): (request: Request) => Promise<Response> {
  return async (request: Request): Promise<Response> => {
    const retryable = safeToRetry(request);
    for (let attempt = 0; ; attempt++) {
      const last = !retryable || attempt >= policy.retries;
      let response: Response;
      try {
        response = await inner(last ? request : request.clone());
      } catch (err) {
        if (last || request.signal?.aborted) throw err;
        await sleep(backoff(attempt, policy));
        continue;
      }
      if (last || (response.status !== 503 && response.status !== 429)) return response;
      await response.body?.cancel();
      await sleep(retryAfter(response, attempt, policy));
    }
  };
}

function backoff(attempt: number, policy: RetryPolicy): number {
  return Math.min(policy.maxDelayMs, 100 * 2 ** attempt);
}

function retryAfter(response: Response, attempt: number, policy: RetryPolicy): number {
  const seconds = Number(response.headers.get("Retry-After"));
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(policy.maxDelayMs, seconds * 1000) : backoff(attempt, policy);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
