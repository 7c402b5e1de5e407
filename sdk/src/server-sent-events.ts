// A reader of Server-Sent Events (https://html.spec.whatwg.org/multipage/server-sent-events.html):
// fields id, event, data and retry; comment lines (`: heartbeat`) are skipped; an event ends at a blank line.
// The event stream client (event-stream.ts) reads the Admin API's stream with it.

export interface ServerSentEvent {
  id?: string;
  event: string;
  data: string;
}

export class SseParser {
  private buffer = "";
  private data: string[] = [];
  private event = "";
  private id: string | undefined;
  /** The reconnection delay the server asked for (`retry:`), in milliseconds. */
  retryMs: number | undefined;

  /** Feeds a chunk of the stream's text; answers the events it completed. */
  push(chunk: string): ServerSentEvent[] {
    this.buffer += chunk;
    const events: ServerSentEvent[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (end === -1 || (this.buffer[end] === "\r" && end === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith("\r\n", end) ? 2 : 1));
      const event = this.line(line);
      if (event) events.push(event);
    }
    return events;
  }

  private line(line: string): ServerSentEvent | undefined {
    if (line === "") {
      const complete = this.data.length > 0 ? { id: this.id, event: this.event || "message", data: this.data.join("\n") } : undefined;
      this.data = [];
      this.event = "";
      return complete;
    }
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
    else if (field === "id" && !value.includes("\0")) this.id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return undefined;
  }
}
