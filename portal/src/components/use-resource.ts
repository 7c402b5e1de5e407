// Loading what a page shows, and running what a page does: the two patterns every page repeats.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { apiErrorOf, type ApiError } from "../api-error.ts";

export type Resource<T> =
  | { status: "loading"; reload: () => void }
  | { status: "failed"; error: ApiError; reload: () => void }
  | { status: "ready"; data: T; reload: () => void };

/** Calls `load` now and whenever a value in `deps` changes; only the latest call's answer is kept. */
export function useResource<T>(load: () => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const [state, setState] = useState<{ status: "loading" } | { status: "failed"; error: ApiError } | { status: "ready"; data: T }>({ status: "loading" });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  useEffect(() => {
    let current = true;
    setState((previous) => (previous.status === "ready" ? previous : { status: "loading" }));
    load().then(
      (data) => current && setState({ status: "ready", data }),
      async (error: unknown) => {
        const apiError = await apiErrorOf(error);
        if (current) setState({ status: "failed", error: apiError });
      },
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  return { ...state, reload };
}

export interface Action<Args extends unknown[], T> {
  busy: boolean;
  error: ApiError | undefined;
  /** Runs the action; resolves to its result, or `undefined` when it failed (the error is in `error`). */
  run: (...args: Args) => Promise<T | undefined>;
  clearError: () => void;
}

/** A button's or a form's call to the API: busy while it runs, its error kept for the page to show. */
export function useAction<Args extends unknown[], T>(act: (...args: Args) => Promise<T>): Action<Args, T> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const latest = useRef(act);
  latest.current = act;
  const run = useCallback(async (...args: Args) => {
    setBusy(true);
    setError(undefined);
    try {
      return await latest.current(...args);
    } catch (caught) {
      setError(await apiErrorOf(caught));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: useCallback(() => setError(undefined), []) };
}
