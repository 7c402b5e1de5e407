// Writing an operation's answer: the documented media type, a JSON body by the operation's generated
// serializer (checked against the contract when responses are checked), the handler's headers, an event
// stream as it comes; and a refusal as its documented error body.
import type { Response } from "express";
import type { Context, OpenAPIBackend, Operation } from "openapi-backend";
import type { DomainError } from "../../domain/errors.ts";
import type { EventStreamBody } from "../../handlers/handler-types.ts";
import type { ApiName } from "../../runtime/config.ts";
import type { Logger } from "../../runtime/logger.ts";
import { replyForError, sendReply, type ErrorReply } from "./error-responses.ts";
import { oauthFormReply, oauthFormRequests } from "./oauth-form-errors.ts";
import type { RequestLocals } from "./request-identity.ts";
import { countRequestAs } from "./request-metrics.ts";
import { jsonText, operationSerializers, sendJsonText } from "./response-serializers.ts";

/** What a handler returns. */
export type HandlerAnswer = { status: number; body?: unknown; headers?: Record<string, string | number> };

export interface Answering {
  /** The request is the operation's: counted under its id, and answered (refusals too) by its serializers. */
  atOperation(res: Response, operationId: string): void;
  /** A refusal, as its documented answer. */
  fail(res: Response, error: DomainError): void;
  /**
   * An error reply in the words of the request's side (RFC 6749 §5.2's on the token endpoints' form);
   * `serialized`: written by the operation's serializer for its status (refusals), or as plain JSON.
   */
  send(res: Response, reply: ErrorReply, serialized?: boolean): void;
  /** What writes one operation's answers, made once at start. */
  answerOf(operationId: string): (res: Response, context: Context, result: HandlerAnswer) => Promise<void>;
}

/** `checkResponses`: every answer is checked against the contract (tests), a mismatch is a 500 and a log line. */
export function answering(api: ApiName, backend: OpenAPIBackend, operations: Operation[], checkResponses: boolean): Answering {
  // What depends only on the operation is worked out here, once: its answers' media types and serializers.
  const answerMediaTypes = new Map(operations.map((operation) => [operation.operationId!, responseMediaTypes(operation)]));
  const serializersOf = new Map(operations.map((operation) => [operation.operationId!, operationSerializers(api, operation.operationId!)]));
  const isOAuthForm = oauthFormRequests(operations);

  /** An error body by the operation's serializer; one that does not fit the documented schema is still answered, as it is. */
  const errorJsonText = (body: unknown, serialize: (body: unknown) => string, locals: RequestLocals, status: number): string => {
    try {
      return jsonText(body, serialize, checkResponses, `the ${status} answer`);
    } catch (error) {
      if (checkResponses) throw error;
      locals.log().error({ err: error, status }, "an error answer outside the contract's schema for its status");
      return JSON.stringify(body);
    }
  };

  const send: Answering["send"] = (res, apiReply, serialized = false) => {
    const locals = res.locals as RequestLocals;
    const reply = isOAuthForm(res.req) ? oauthFormReply(apiReply, res.req) : apiReply;
    const serialize = serialized ? locals.serializers?.[String(reply.status)] : undefined;
    sendReply(res, reply, serialize && ((body) => errorJsonText(body, serialize, locals, reply.status)));
  };

  return {
    atOperation(res, operationId) {
      countRequestAs(res, operationId);
      (res.locals as RequestLocals).serializers = serializersOf.get(operationId);
    },
    fail: (res, error) => send(res, replyForError(error, (res.locals as RequestLocals).requestId, api), true),
    send,
    answerOf(operationId) {
      const serializers = serializersOf.get(operationId)!;
      const mediaTypes = answerMediaTypes.get(operationId)!;
      return async (res, context, result) => {
        const contentType = responseContentType(mediaTypes[result.status], result.body);
        if (contentType === "text/event-stream" && typeof result.body === "function") {
          return sendEventStream(res, result, (res.locals as RequestLocals).log);
        }
        if (checkResponses && contentType === "application/json") {
          const check = backend.validateResponse(result.body, context.operation, result.status);
          if (check.errors) throw new Error(`${operationId} answered ${result.status} with a body outside the contract: ${JSON.stringify(check.errors)}`);
        }
        // Written before the status is set: a body its serializer cannot write is a 500 without the answer's headers.
        const json =
          result.body !== undefined && contentType === "application/json"
            ? jsonText(result.body, serializers[String(result.status)], checkResponses, `${operationId} answered ${result.status}`)
            : undefined;
        res.status(result.status);
        for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
        if (result.body === undefined) res.end();
        else if (json !== undefined) sendJsonText(res, json);
        else res.type(contentType ?? "application/octet-stream").send(result.body);
      };
    },
  };
}

/**
 * A `text/event-stream` answer: headers at once, then each chunk the body yields, written as it comes
 * (waiting for the socket to drain when the client reads slowly). When the client leaves, the body's
 * signal aborts and its iterator is closed, so what it holds (timers, subscriptions) is let go.
 */
async function sendEventStream(res: Response, result: HandlerAnswer, log: () => Logger): Promise<void> {
  const controller = new AbortController();
  const left = () => controller.abort();
  res.on("close", left);
  res.status(result.status);
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.flushHeaders();
  try {
    for await (const chunk of (result.body as EventStreamBody)(controller.signal)) {
      if (controller.signal.aborted) break;
      if (!res.write(chunk)) await drained(res, controller.signal);
    }
  } catch (error) {
    // The status is sent: the stream just ends, and the client resumes from the last id it received.
    if (!controller.signal.aborted) log().error({ err: error }, "the event stream ended on an error");
  } finally {
    res.off("close", left);
    res.end();
  }
}

function drained(res: Response, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.on("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

type MediaTypes = { json: boolean; text: string | undefined; first: string | undefined };

/** Each documented status's media types, by status. */
function responseMediaTypes(operation: Operation): Record<number, MediaTypes> {
  const byStatus: Record<number, MediaTypes> = {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const types = Object.keys((response as { content?: Record<string, unknown> }).content ?? {});
    byStatus[Number(status)] = { json: types.includes("application/json"), text: types.find((type) => type.startsWith("text/")), first: types[0] };
  }
  return byStatus;
}

/** The declared media type of a response: JSON where declared, except for a text body (a page) beside it. */
function responseContentType(types: MediaTypes | undefined, body: unknown): string | undefined {
  if (types === undefined) return undefined;
  if (typeof body === "string" && types.text) return types.text;
  return types.json ? "application/json" : types.first;
}
