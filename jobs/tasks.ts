// The job queue's task list: each task's name, its payload, and its handler. Later issues add webhook
// delivery, time-driven transitions and notifications here: one entry in TaskPayloads, one handler in
// taskList. Payloads are plain JSON holding ids, never secrets (they sit in the jobs table).
import type { JobHelpers } from "graphile-worker";

export interface TaskPayloads {
  /** Does nothing: proves the queue end to end (tests, smoke checks). */
  noop: { note?: string };
}

export type TaskName = keyof TaskPayloads & string;

export type TaskHandler<T extends TaskName> = (payload: TaskPayloads[T], helpers: JobHelpers) => Promise<void>;

export type TaskList = { [T in TaskName]: TaskHandler<T> };

// When handlers need the database, a clock or an HTTP client, turn this into createTaskList(deps) built
// once by the worker process (server/service.ts).
export const taskList: TaskList = {
  noop: async () => {},
};
