// Types of queue.js: the SDK's durable queue of ops not yet answered (docs/sdk.md, "A persistent queue").
import type { Board, OpMessage, OpQueue } from './shuffleboard.js';

/** The database's name (one per origin). */
export const DB_NAME: string;
/** The most ops kept for one board by default. */
export const MAX_QUEUED_OPS: number;

/** `put` past the limit: the op was not stored (it is still sent while the client lives). */
export class QueueFullError extends Error {
  constructor(board: string, limit?: number);
}

/** The durable queue of one board, in IndexedDB; every method rejects when IndexedDB does. */
export class PendingStore implements OpQueue {
  static open(board: string, options?: {
    /** The IndexedDB factory (the browser's by default). */
    indexedDB?: IDBFactory | null;
    name?: string;
    now?: () => number;
    /** The most ops kept (MAX_QUEUED_OPS). */
    limit?: number;
  }): Promise<PendingStore>;
  readonly board: string;
  readonly limit: number;
  /** Keeps `msg` until `delete`; an op id kept already keeps its place. */
  put(msg: OpMessage): Promise<boolean>;
  delete(opId: string): Promise<void>;
  /** The ops kept, oldest first. */
  ops(): Promise<OpMessage[]>;
  /** Keeps the last confirmed board seen. */
  saveBoard(board: Board, seq: number): Promise<void>;
  loadBoard(): Promise<{ board: Board; seq: number } | null>;
  close(): void;
}
