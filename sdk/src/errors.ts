// Reading the errors the generated clients throw. Each generated client (integration, auth, admin) has its
// own runtime module, hence its own `ResponseError` and `FetchError` classes: these helpers go by the
// errors' names and shapes, so that they work for all three.

/** A non-2xx answer: `response` is the fetch Response (its body not read yet). */
export interface ResponseErrorLike extends Error {
  name: "ResponseError";
  response: Response;
}

/** The request got no answer: a connection error, a timeout or an abort. */
export interface FetchErrorLike extends Error {
  name: "FetchError";
  cause: unknown;
}

export function isResponseError(error: unknown): error is ResponseErrorLike {
  return error instanceof Error && error.name === "ResponseError" && typeof (error as Partial<ResponseErrorLike>).response?.status === "number";
}

/** True when the request may or may not have reached the service: no answer came back. */
export function isNoAnswerError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // FetchError: the generated client's wrapper of a failed fetch. TimeoutError and AbortError: a fetch
  // aborted by an AbortSignal (AbortSignal.timeout) outside the client's wrapper.
  return error.name === "FetchError" || error.name === "TimeoutError" || error.name === "AbortError";
}

/** The HTTP status of a generated client's error, or `undefined` when no answer came back. */
export function httpStatusOf(error: unknown): number | undefined {
  return isResponseError(error) ? error.response.status : undefined;
}

/**
 * The JSON body of a generated client's error response, or `undefined` when there is none or it is not
 * JSON. Reads a clone, so that the body can still be read again from the error.
 */
export async function errorBodyOf(error: unknown): Promise<unknown> {
  if (!isResponseError(error)) return undefined;
  try {
    const text = await error.response.clone().text();
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}
