import type { DefaultedTimestamp } from "./column-types.ts";

// The job workers' heartbeats (migration 2026_11_23_0022_worker_heartbeats).

export interface WorkerHeartbeatsTable {
  /** The id graphile-worker locks jobs with (`locked_by`): a worker pool's, or one worker's. */
  worker_id: string;
  /** The database's time of its last heartbeat (never the Sandbox clock: jobs are locked in database time). */
  last_seen_at: DefaultedTimestamp;
}
