"use strict";
var CardRefereeClient = (() => {
  var __defProp = Object.defineProperty;
  var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
  var __getOwnPropNames = Object.getOwnPropertyNames;
  var __hasOwnProp = Object.prototype.hasOwnProperty;
  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
  var __export = (target, all) => {
    for (var name in all)
      __defProp(target, name, { get: all[name], enumerable: true });
  };
  var __copyProps = (to, from, except, desc) => {
    if (from && typeof from === "object" || typeof from === "function") {
      for (let key of __getOwnPropNames(from))
        if (!__hasOwnProp.call(to, key) && key !== except)
          __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
    }
    return to;
  };
  var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);
  var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);

  // src/index.ts
  var index_exports = {};
  __export(index_exports, {
    CardReferee: () => CardReferee,
    DEFAULT_RETRY: () => DEFAULT_RETRY,
    ProblemError: () => ProblemError,
    Session: () => Session,
    parseEventStream: () => parseEventStream
  });

  // node_modules/openapi-fetch/dist/index.mjs
  var PATH_PARAM_RE = /\{[^{}]+\}/g;
  var supportsRequestInitExt = () => {
    return typeof process === "object" && Number.parseInt(process?.versions?.node?.substring(0, 2)) >= 18 && process.versions.undici;
  };
  function randomID() {
    return Math.random().toString(36).slice(2, 11);
  }
  function createClient(clientOptions) {
    let {
      baseUrl = "",
      Request: CustomRequest = globalThis.Request,
      fetch: baseFetch = globalThis.fetch,
      querySerializer: globalQuerySerializer,
      bodySerializer: globalBodySerializer,
      pathSerializer: globalPathSerializer,
      headers: baseHeaders,
      requestInitExt = void 0,
      ...baseOptions
    } = { ...clientOptions };
    requestInitExt = supportsRequestInitExt() ? requestInitExt : void 0;
    baseUrl = removeTrailingSlash(baseUrl);
    const globalMiddlewares = [];
    async function coreFetch(schemaPath, fetchOptions) {
      const {
        baseUrl: localBaseUrl,
        fetch = baseFetch,
        Request = CustomRequest,
        headers,
        params = {},
        parseAs = "json",
        querySerializer: requestQuerySerializer,
        bodySerializer = globalBodySerializer ?? defaultBodySerializer,
        pathSerializer: requestPathSerializer,
        body,
        middleware: requestMiddlewares = [],
        ...init
      } = fetchOptions || {};
      let finalBaseUrl = baseUrl;
      if (localBaseUrl) {
        finalBaseUrl = removeTrailingSlash(localBaseUrl) ?? baseUrl;
      }
      let querySerializer = typeof globalQuerySerializer === "function" ? globalQuerySerializer : createQuerySerializer(globalQuerySerializer);
      if (requestQuerySerializer) {
        querySerializer = typeof requestQuerySerializer === "function" ? requestQuerySerializer : createQuerySerializer({
          ...typeof globalQuerySerializer === "object" ? globalQuerySerializer : {},
          ...requestQuerySerializer
        });
      }
      const pathSerializer = requestPathSerializer || globalPathSerializer || defaultPathSerializer;
      const serializedBody = body === void 0 ? void 0 : bodySerializer(
        body,
        // Note: we declare mergeHeaders() both here and below because it’s a bit of a chicken-or-egg situation:
        // bodySerializer() needs all headers so we aren’t dropping ones set by the user, however,
        // the result of this ALSO sets the lowest-priority content-type header. So we re-merge below,
        // setting the content-type at the very beginning to be overwritten.
        // Lastly, based on the way headers work, it’s not a simple “present-or-not” check becauase null intentionally un-sets headers.
        mergeHeaders(baseHeaders, headers, params.header)
      );
      const finalHeaders = mergeHeaders(
        // with no body, we should not to set Content-Type
        serializedBody === void 0 || // if serialized body is FormData; browser will correctly set Content-Type & boundary expression
        serializedBody instanceof FormData ? {} : {
          "Content-Type": "application/json"
        },
        baseHeaders,
        headers,
        params.header
      );
      const finalMiddlewares = [...globalMiddlewares, ...requestMiddlewares];
      const requestInit = {
        redirect: "follow",
        ...baseOptions,
        ...init,
        body: serializedBody,
        headers: finalHeaders
      };
      let id;
      let options;
      let request = new Request(
        createFinalURL(schemaPath, { baseUrl: finalBaseUrl, params, querySerializer, pathSerializer }),
        requestInit
      );
      let response;
      for (const key in init) {
        if (!(key in request)) {
          request[key] = init[key];
        }
      }
      if (finalMiddlewares.length) {
        id = randomID();
        options = Object.freeze({
          baseUrl: finalBaseUrl,
          fetch,
          parseAs,
          querySerializer,
          bodySerializer,
          pathSerializer
        });
        for (const m of finalMiddlewares) {
          if (m && typeof m === "object" && typeof m.onRequest === "function") {
            const result = await m.onRequest({
              request,
              schemaPath,
              params,
              options,
              id
            });
            if (result) {
              if (result instanceof Request) {
                request = result;
              } else if (result instanceof Response) {
                response = result;
                break;
              } else {
                throw new Error("onRequest: must return new Request() or Response() when modifying the request");
              }
            }
          }
        }
      }
      if (!response) {
        try {
          response = await fetch(request, requestInitExt);
        } catch (error2) {
          let errorAfterMiddleware = error2;
          if (finalMiddlewares.length) {
            for (let i = finalMiddlewares.length - 1; i >= 0; i--) {
              const m = finalMiddlewares[i];
              if (m && typeof m === "object" && typeof m.onError === "function") {
                const result = await m.onError({
                  request,
                  error: errorAfterMiddleware,
                  schemaPath,
                  params,
                  options,
                  id
                });
                if (result) {
                  if (result instanceof Response) {
                    errorAfterMiddleware = void 0;
                    response = result;
                    break;
                  }
                  if (result instanceof Error) {
                    errorAfterMiddleware = result;
                    continue;
                  }
                  throw new Error("onError: must return new Response() or instance of Error");
                }
              }
            }
          }
          if (errorAfterMiddleware) {
            throw errorAfterMiddleware;
          }
        }
        if (finalMiddlewares.length) {
          for (let i = finalMiddlewares.length - 1; i >= 0; i--) {
            const m = finalMiddlewares[i];
            if (m && typeof m === "object" && typeof m.onResponse === "function") {
              const result = await m.onResponse({
                request,
                response,
                schemaPath,
                params,
                options,
                id
              });
              if (result) {
                if (!(result instanceof Response)) {
                  throw new Error("onResponse: must return new Response() when modifying the response");
                }
                response = result;
              }
            }
          }
        }
      }
      const contentLength = response.headers.get("Content-Length");
      if (response.status === 204 || request.method === "HEAD" || contentLength === "0" && !response.headers.get("Transfer-Encoding")?.includes("chunked")) {
        return response.ok ? { data: void 0, response } : { error: void 0, response };
      }
      if (response.ok) {
        const getResponseData = async () => {
          if (parseAs === "stream") {
            return response.body;
          }
          if (parseAs === "json" && !contentLength) {
            const raw = await response.text();
            return raw ? JSON.parse(raw) : void 0;
          }
          return await response[parseAs]();
        };
        return { data: await getResponseData(), response };
      }
      let error = await response.text();
      try {
        error = JSON.parse(error);
      } catch {
      }
      return { error, response };
    }
    return {
      request(method, url, init) {
        return coreFetch(url, { ...init, method: method.toUpperCase() });
      },
      /** Call a GET endpoint */
      GET(url, init) {
        return coreFetch(url, { ...init, method: "GET" });
      },
      /** Call a PUT endpoint */
      PUT(url, init) {
        return coreFetch(url, { ...init, method: "PUT" });
      },
      /** Call a POST endpoint */
      POST(url, init) {
        return coreFetch(url, { ...init, method: "POST" });
      },
      /** Call a DELETE endpoint */
      DELETE(url, init) {
        return coreFetch(url, { ...init, method: "DELETE" });
      },
      /** Call a OPTIONS endpoint */
      OPTIONS(url, init) {
        return coreFetch(url, { ...init, method: "OPTIONS" });
      },
      /** Call a HEAD endpoint */
      HEAD(url, init) {
        return coreFetch(url, { ...init, method: "HEAD" });
      },
      /** Call a PATCH endpoint */
      PATCH(url, init) {
        return coreFetch(url, { ...init, method: "PATCH" });
      },
      /** Call a TRACE endpoint */
      TRACE(url, init) {
        return coreFetch(url, { ...init, method: "TRACE" });
      },
      /** Register middleware */
      use(...middleware) {
        for (const m of middleware) {
          if (!m) {
            continue;
          }
          if (typeof m !== "object" || !("onRequest" in m || "onResponse" in m || "onError" in m)) {
            throw new Error("Middleware must be an object with one of `onRequest()`, `onResponse() or `onError()`");
          }
          globalMiddlewares.push(m);
        }
      },
      /** Unregister middleware */
      eject(...middleware) {
        for (const m of middleware) {
          const i = globalMiddlewares.indexOf(m);
          if (i !== -1) {
            globalMiddlewares.splice(i, 1);
          }
        }
      }
    };
  }
  function serializePrimitiveParam(name, value, options) {
    if (value === void 0 || value === null) {
      return "";
    }
    if (typeof value === "object") {
      throw new Error(
        "Deeply-nested arrays/objects aren’t supported. Provide your own `querySerializer()` to handle these."
      );
    }
    return `${name}=${options?.allowReserved === true ? value : encodeURIComponent(value)}`;
  }
  function serializeObjectParam(name, value, options) {
    if (!value || typeof value !== "object") {
      return "";
    }
    const values = [];
    const joiner = {
      simple: ",",
      label: ".",
      matrix: ";"
    }[options.style] || "&";
    if (options.style !== "deepObject" && options.explode === false) {
      for (const k in value) {
        values.push(k, options.allowReserved === true ? value[k] : encodeURIComponent(value[k]));
      }
      const final2 = values.join(",");
      switch (options.style) {
        case "form": {
          return `${name}=${final2}`;
        }
        case "label": {
          return `.${final2}`;
        }
        case "matrix": {
          return `;${name}=${final2}`;
        }
        default: {
          return final2;
        }
      }
    }
    for (const k in value) {
      const finalName = options.style === "deepObject" ? `${name}[${k}]` : k;
      values.push(serializePrimitiveParam(finalName, value[k], options));
    }
    const final = values.join(joiner);
    return options.style === "label" || options.style === "matrix" ? `${joiner}${final}` : final;
  }
  function serializeArrayParam(name, value, options) {
    if (!Array.isArray(value)) {
      return "";
    }
    if (options.explode === false) {
      const joiner2 = { form: ",", spaceDelimited: "%20", pipeDelimited: "|" }[options.style] || ",";
      const final = (options.allowReserved === true ? value : value.map((v) => encodeURIComponent(v))).join(joiner2);
      switch (options.style) {
        case "simple": {
          return final;
        }
        case "label": {
          return `.${final}`;
        }
        case "matrix": {
          return `;${name}=${final}`;
        }
        // case "spaceDelimited":
        // case "pipeDelimited":
        default: {
          return `${name}=${final}`;
        }
      }
    }
    const joiner = { simple: ",", label: ".", matrix: ";" }[options.style] || "&";
    const values = [];
    for (const v of value) {
      if (options.style === "simple" || options.style === "label") {
        values.push(options.allowReserved === true ? v : encodeURIComponent(v));
      } else {
        values.push(serializePrimitiveParam(name, v, options));
      }
    }
    return options.style === "label" || options.style === "matrix" ? `${joiner}${values.join(joiner)}` : values.join(joiner);
  }
  function createQuerySerializer(options) {
    return function querySerializer(queryParams) {
      const search = [];
      if (queryParams && typeof queryParams === "object") {
        for (const name in queryParams) {
          const value = queryParams[name];
          if (value === void 0 || value === null) {
            continue;
          }
          if (Array.isArray(value)) {
            if (value.length === 0) {
              continue;
            }
            search.push(
              serializeArrayParam(name, value, {
                style: "form",
                explode: true,
                ...options?.array,
                allowReserved: options?.allowReserved || false
              })
            );
            continue;
          }
          if (typeof value === "object") {
            search.push(
              serializeObjectParam(name, value, {
                style: "deepObject",
                explode: true,
                ...options?.object,
                allowReserved: options?.allowReserved || false
              })
            );
            continue;
          }
          search.push(serializePrimitiveParam(name, value, options));
        }
      }
      return search.join("&");
    };
  }
  function defaultPathSerializer(pathname, pathParams) {
    let nextURL = pathname;
    for (const match of pathname.match(PATH_PARAM_RE) ?? []) {
      let name = match.substring(1, match.length - 1);
      let explode = false;
      let style = "simple";
      if (name.endsWith("*")) {
        explode = true;
        name = name.substring(0, name.length - 1);
      }
      if (name.startsWith(".")) {
        style = "label";
        name = name.substring(1);
      } else if (name.startsWith(";")) {
        style = "matrix";
        name = name.substring(1);
      }
      if (!pathParams || pathParams[name] === void 0 || pathParams[name] === null) {
        continue;
      }
      const value = pathParams[name];
      if (Array.isArray(value)) {
        nextURL = nextURL.replace(match, serializeArrayParam(name, value, { style, explode }));
        continue;
      }
      if (typeof value === "object") {
        nextURL = nextURL.replace(match, serializeObjectParam(name, value, { style, explode }));
        continue;
      }
      if (style === "matrix") {
        nextURL = nextURL.replace(match, `;${serializePrimitiveParam(name, value)}`);
        continue;
      }
      nextURL = nextURL.replace(match, style === "label" ? `.${encodeURIComponent(value)}` : encodeURIComponent(value));
    }
    return nextURL;
  }
  function defaultBodySerializer(body, headers) {
    if (body instanceof FormData) {
      return body;
    }
    if (headers) {
      const contentType = headers.get instanceof Function ? headers.get("Content-Type") ?? headers.get("content-type") : headers["Content-Type"] ?? headers["content-type"];
      if (contentType === "application/x-www-form-urlencoded") {
        return new URLSearchParams(body).toString();
      }
    }
    return JSON.stringify(body);
  }
  function createFinalURL(pathname, options) {
    let finalURL = `${options.baseUrl}${pathname}`;
    if (options.params?.path) {
      finalURL = options.pathSerializer(finalURL, options.params.path);
    }
    let search = options.querySerializer(options.params.query ?? {});
    if (search.startsWith("?")) {
      search = search.substring(1);
    }
    if (search) {
      finalURL += `?${search}`;
    }
    return finalURL;
  }
  function mergeHeaders(...allHeaders) {
    const finalHeaders = new Headers();
    for (const h of allHeaders) {
      if (!h || typeof h !== "object") {
        continue;
      }
      const iterator = h instanceof Headers ? h.entries() : Object.entries(h);
      for (const [k, v] of iterator) {
        if (v === null) {
          finalHeaders.delete(k);
        } else if (Array.isArray(v)) {
          for (const v2 of v) {
            finalHeaders.append(k, v2);
          }
        } else if (v !== void 0) {
          finalHeaders.set(k, v);
        }
      }
    }
    return finalHeaders;
  }
  function removeTrailingSlash(url) {
    if (url.endsWith("/")) {
      return url.substring(0, url.length - 1);
    }
    return url;
  }

  // src/events.ts
  async function* parseEventStream(body) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let current = {};
    try {
      for (; ; ) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let newline;
        while ((newline = buffer.search(/\r?\n/)) >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(buffer[newline] === "\r" ? newline + 2 : newline + 1);
          if (line === "") {
            if (current.data !== void 0) yield { event: current.event ?? "message", data: current.data, id: current.id };
            current = {};
            continue;
          }
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value2 = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") current.data = current.data === void 0 ? value2 : `${current.data}
${value2}`;
          else if (field === "event") current.event = value2;
          else if (field === "id") current.id = value2;
        }
      }
    } finally {
      reader.releaseLock();
    }
  }
  function typed(raw) {
    const data = JSON.parse(raw.data);
    switch (raw.event) {
      case "view":
        return { event: "view", id: Number(raw.id), data };
      case "gap":
        return { event: "gap", data };
      case "end":
        return { event: "end", data };
      case "gone":
      case "error":
        return { event: raw.event, data };
      default:
        return void 0;
    }
  }

  // src/problems.ts
  var ProblemError = class extends Error {
    constructor(status, problem) {
      super(problem.detail);
      __publicField(this, "status");
      __publicField(this, "code");
      __publicField(this, "reason");
      __publicField(this, "detail");
      __publicField(this, "problem");
      this.name = "ProblemError";
      this.status = status;
      this.code = problem.code;
      this.reason = problem.reason;
      this.detail = problem.detail;
      this.problem = problem;
    }
  };
  function unwrap(result) {
    const { response } = result;
    if (response.ok) return result.data;
    throw new ProblemError(response.status, asProblem(response, result.error));
  }
  function asProblem(response, body) {
    if (body !== null && typeof body === "object" && "code" in body && "detail" in body) return body;
    return {
      type: "about:blank",
      title: response.statusText || "Error",
      status: response.status,
      detail: typeof body === "string" && body ? body : `HTTP ${response.status}`,
      code: "internal_error"
    };
  }
  var DEFAULT_RETRY = { retries: 3, maxDelayMs: 2e3 };
  function safeToRetry(request) {
    const path = new URL(request.url).pathname;
    if (request.method === "GET") return true;
    if (request.method !== "POST") return false;
    if (path.startsWith("/v1/games/")) return true;
    return path.endsWith("/moves") && request.headers.has("Idempotency-Key");
  }
  function retryingFetch(inner, policy) {
    return async (request) => {
      const retryable = safeToRetry(request);
      for (let attempt = 0; ; attempt++) {
        const last = !retryable || attempt >= policy.retries;
        let response;
        try {
          response = await inner(last ? request : request.clone());
        } catch (err) {
          if (last || request.signal?.aborted) throw err;
          await sleep(backoff(attempt, policy));
          continue;
        }
        if (last || response.status !== 503 && response.status !== 429) return response;
        await response.body?.cancel();
        await sleep(retryAfter(response, attempt, policy));
      }
    };
  }
  function backoff(attempt, policy) {
    return Math.min(policy.maxDelayMs, 100 * 2 ** attempt);
  }
  function retryAfter(response, attempt, policy) {
    const seconds = Number(response.headers.get("Retry-After"));
    return Number.isFinite(seconds) && seconds >= 0 ? Math.min(policy.maxDelayMs, seconds * 1e3) : backoff(attempt, policy);
  }
  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // src/index.ts
  var CardReferee = class {
    constructor(options = {}) {
      /** The typed openapi-fetch client itself, for any call of the contract. */
      __publicField(this, "api");
      const inner = options.fetch ?? globalThis.fetch.bind(globalThis);
      this.api = createClient({
        baseUrl: options.baseUrl ?? "",
        fetch: retryingFetch(inner, { ...DEFAULT_RETRY, ...options.retry })
      });
    }
    async games() {
      return unwrap(await this.api.GET("/v1/games"));
    }
    async game(game) {
      return unwrap(await this.api.GET("/v1/games/{game}", { params: { path: { game } } }));
    }
    async newMatch(game, spec = {}) {
      const body = spec;
      return unwrap(await this.api.POST("/v1/games/{game}/new", { params: { path: { game } }, body }));
    }
    /** Adjudicate `move` on `state`: the next envelope, or a ProblemError (code illegal_move, with a reason). */
    async move(game, state, move, stateTag) {
      const body = { state, move, ...stateTag === void 0 ? {} : { state_tag: stateTag } };
      return unwrap(await this.api.POST("/v1/games/{game}/move", { params: { path: { game } }, body }));
    }
    /** `move` on an envelope the service gave: its state and state tag are sent back unchanged. */
    async play(game, envelope, move) {
      return this.move(game, envelope.state, move, envelope.state_tag);
    }
    async replay(game, replay) {
      const body = replay;
      return unwrap(await this.api.POST("/v1/games/{game}/replay", { params: { path: { game } }, body }));
    }
    async legalMoves(game, state, seat) {
      const body = { state, seat: seat ?? null };
      const answer = unwrap(await this.api.POST("/v1/games/{game}/legal-moves", { params: { path: { game } }, body }));
      return answer.legal_moves;
    }
    async view(game, state, seat) {
      return unwrap(await this.api.POST("/v1/games/{game}/view", { params: { path: { game } }, body: { state, seat } }));
    }
    /** Start a session of game G; `seat(created, n)` or `session(id, token)` then plays it. */
    async createSession(game, spec = {}) {
      const body = { ...spec, game };
      return unwrap(await this.api.POST("/v1/sessions", { body }));
    }
    /** A session as seat `seat` of a session just created (its token), or as a spectator with `seat` null. */
    seat(game, created, seat) {
      const token = seat === null ? void 0 : created.seats.find((s) => s.seat === seat)?.token;
      if (seat !== null && token === void 0) throw new RangeError(`the session has no seat ${seat}`);
      return new Session(this, game, created.id, token);
    }
    /** A session by its id, with a seat's token (or none: a spectator). */
    session(game, id, token) {
      return new Session(this, game, id, token);
    }
  };
  var Session = class {
    constructor(client, game, id, token) {
      __publicField(this, "client", client);
      __publicField(this, "game", game);
      __publicField(this, "id", id);
      __publicField(this, "token", token);
    }
    headers() {
      return this.token === void 0 ? {} : { Authorization: `Bearer ${this.token}` };
    }
    /** This seat's view now, or (with `after` and `waitSeconds`) once the version is above `after`. */
    async view(after, waitSeconds) {
      const query = after === void 0 ? {} : { after, wait: waitSeconds ?? 0 };
      const answer = await this.client.api.GET("/v1/sessions/{id}", {
        params: { path: { id: this.id }, query },
        headers: this.headers()
      });
      return ofGame(unwrap(answer));
    }
    /** Make a move; retried safely with one Idempotency-Key. */
    async move(move, options = {}) {
      const key = options.idempotencyKey ?? newKey();
      const answer = await this.client.api.POST("/v1/sessions/{id}/moves", {
        params: { path: { id: this.id }, header: { "Idempotency-Key": key } },
        body: { move, version: options.version ?? null },
        headers: this.headers()
      });
      return ofGame(unwrap(answer));
    }
    async concede(reason) {
      const answer = await this.client.api.POST("/v1/sessions/{id}/concede", {
        params: { path: { id: this.id } },
        body: { reason: reason ?? null },
        headers: this.headers()
      });
      return ofGame(unwrap(answer));
    }
    async abort(reason) {
      const answer = await this.client.api.POST("/v1/sessions/{id}/abort", {
        params: { path: { id: this.id } },
        body: { reason: reason ?? null },
        headers: this.headers()
      });
      return ofGame(unwrap(answer));
    }
    async log() {
      return unwrap(await this.client.api.GET("/v1/sessions/{id}/log", { params: { path: { id: this.id } } }));
    }
    /** The event stream, each event as it arrives. The service closes a stream after EVENTS_MAX seconds: the
     * iterator then reconnects with Last-Event-ID and goes on, until the match ends (`end`), the session is
     * gone, or `signal` aborts. */
    async *events(options = {}) {
      let last = options.lastEventId;
      for (; ; ) {
        const answer = await this.client.api.GET("/v1/sessions/{id}/events", {
          params: { path: { id: this.id }, header: last === void 0 ? {} : { "Last-Event-ID": String(last) } },
          headers: { ...this.headers(), Accept: "text/event-stream" },
          parseAs: "stream",
          signal: options.signal
        });
        const { response } = answer;
        if (response.status === 204) return;
        const body = unwrap({ data: answer.data, error: answer.error, response });
        if (body === null) return;
        let closing = false;
        for await (const raw of parseEventStream(body)) {
          const event = typed(raw);
          if (event === void 0) continue;
          if (event.event === "view") last = event.id;
          closing = event.event === "end" || event.event === "gone";
          yield event;
          if (closing) return;
        }
        if (options.reconnect === false || options.signal?.aborted) return;
        await sleep(50);
      }
    }
  };
  function newKey() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }
  function ofGame(view) {
    return view;
  }
  return __toCommonJS(index_exports);
})();
