// The session event stream (text/event-stream) read as it comes, as typed events, resumed with Last-Event-ID.
import type { components } from "./schema.js";

type Schemas = components["schemas"];

/** One event of GET /v1/sessions/{id}/events, its `data` parsed (the contract's SessionEventStream). */
export type SessionEvent =
  | { event: "view"; id: number; data: Schemas["SessionView"] }
  | { event: "gap"; data: Schemas["StreamGap"] }
  | { event: "end"; data: Schemas["StreamEnd"] }
  | { event: "gone"; data: Schemas["StreamProblem"] }
  | { event: "error"; data: Schemas["StreamProblem"] };

interface RawEvent {
  event: string;
  data: string;
  id?: string;
}

/** The events of one text/event-stream body, each as soon as its blank line arrives. Comment lines
 * (heartbeats) and `retry:` are skipped. */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<RawEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let current: Partial<RawEvent> = {};
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r?\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(buffer[newline] === "\r" ? newline + 2 : newline + 1);
        if (line === "") {
          if (current.data !== undefined) yield { event: current.event ?? "message", data: current.data, id: current.id };
          current = {};
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") current.data = current.data === undefined ? value : `${current.data}\n${value}`;
        else if (field === "event") current.event = value;
        else if (field === "id") current.id = value;
      }
    }
  } finally {
    reader.releaseLock();
  }
}

export function typed(raw: RawEvent): SessionEvent | undefined {
  const data: unknown = JSON.parse(raw.data);
  switch (raw.event) {
    case "view":
      return { event: "view", id: Number(raw.id), data: data as Schemas["SessionView"] };
    case "gap":
      return { event: "gap", data: data as Schemas["StreamGap"] };
    case "end":
      return { event: "end", data: data as Schemas["StreamEnd"] };
    case "gone":
    case "error":
      return { event: raw.event, data: data as Schemas["StreamProblem"] };
    default:
      return undefined; // an event type this client does not know yet
  }
}
