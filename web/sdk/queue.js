// A durable queue for the SDK's client (docs/sdk.md, "A persistent queue"): the ops a client has
// sent or queued and not seen answered, kept in IndexedDB per board with the last board the page
// saw, so that they outlive a reload, a closed browser or a discarded tab and are sent again, with
// the same op ids, when the server is back (the server answers `ack` for an op id it committed
// before, so nothing is applied twice). Pass one to `new Client({queue})`.
//
// One database per origin (`shuffleboard`, version 1) with two object stores:
//   ops     {board, op, at, msg}   key [board, op], index board: one entry per op id, `at` orders them
//   boards  {board, seq, snapshot} key board: the last confirmed board saved (`saveBoard`)
// Every call is one transaction over both stores, so that calls land in the order they were made.
// Tabs of one browser share it: the same op loaded by two tabs goes out twice with one op id, and
// the server commits it once.

/** The database's name. */
export const DB_NAME = 'shuffleboard';
/** The most ops kept for one board: past it `put` refuses (and the client says so), never drops one. */
export const MAX_QUEUED_OPS = 5000;
const VERSION = 1;
const OPS = 'ops';
const BOARDS = 'boards';

/** The queue of a board is full: the op was not stored (it is still sent while the page lives). */
export class QueueFullError extends Error {
  constructor(board, limit = MAX_QUEUED_OPS) {
    super(`more than ${limit} unsaved changes on board ${board}`);
    this.name = 'QueueFullError';
  }
}

/** A request's result as a promise. */
function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** Opens (and, the first time, makes) the database. */
function openDatabase(indexedDB, name) {
  const request = indexedDB.open(name, VERSION);
  request.onupgradeneeded = () => {
    const db = request.result;
    if (!db.objectStoreNames.contains(OPS)) db.createObjectStore(OPS, { keyPath: ['board', 'op'] }).createIndex('board', 'board');
    if (!db.objectStoreNames.contains(BOARDS)) db.createObjectStore(BOARDS, { keyPath: 'board' });
  };
  return done(request);
}

/**
 * The durable queue of one board. `PendingStore.open(board)` opens it; every method returns a
 * promise and rejects when IndexedDB does (private windows, a full disk), so callers can say so.
 */
export class PendingStore {
  #db;
  #clock;

  constructor(db, board, { now = () => Date.now(), limit = MAX_QUEUED_OPS } = {}) {
    this.#db = db;
    this.board = board;
    /** The most ops kept for this board (MAX_QUEUED_OPS unless a test says otherwise). */
    this.limit = limit;
    this.#clock = { now, last: 0 };
  }

  /**
   * Opens the queue of `board`. `indexedDB`: the factory (the browser's by default; tests pass a
   * fake); `name`: the database's name; `limit`: the most ops kept (MAX_QUEUED_OPS). Rejects when
   * there is no IndexedDB.
   */
  static async open(board, { indexedDB = globalThis.indexedDB, name = DB_NAME, now, limit } = {}) {
    if (typeof board !== 'string' || !board) throw new TypeError('PendingStore.open: `board` is required');
    if (!indexedDB) throw new Error('no IndexedDB here');
    return new PendingStore(await openDatabase(indexedDB, name), board, { now, limit });
  }

  /** One transaction over both stores: `fn(ops, boards)` returns the request whose result counts. */
  #run(mode, fn) {
    return new Promise((resolve, reject) => {
      let tx;
      try {
        tx = this.#db.transaction([OPS, BOARDS], mode);
      } catch (error) {
        reject(error);
        return;
      }
      let result;
      let failure = null;
      const set = (value) => { result = value; };
      const fail = (error) => { failure = error; try { tx.abort(); } catch { /* already over */ } };
      try {
        fn(tx.objectStore(OPS), tx.objectStore(BOARDS), set, fail);
      } catch (error) {
        fail(error);
      }
      tx.oncomplete = () => (failure ? reject(failure) : resolve(result));
      tx.onabort = () => reject(failure ?? tx.error ?? new Error('transaction aborted'));
      tx.onerror = () => {}; // onabort follows and rejects
    });
  }

  /** A strictly increasing stamp, so ops made in one millisecond keep their order. */
  #stamp() {
    const t = Math.max(this.#clock.now(), this.#clock.last + 1);
    this.#clock.last = t;
    return t;
  }

  /**
   * Keeps op message `msg` ({type, op, base, …}) until `delete`. An op id kept already keeps its
   * place in the order (its message is replaced: a base filled in at sending). Rejects with `QueueFullError` past MAX_QUEUED_OPS.
   */
  put(msg) {
    if (!msg || typeof msg.op !== 'string') return Promise.reject(new TypeError('put: not an op message'));
    const at = this.#stamp();
    const entry = { board: this.board, op: msg.op, at, msg: JSON.parse(JSON.stringify(msg)) };
    return this.#run('readwrite', (ops, _boards, set, fail) => {
      const known = ops.get([this.board, msg.op]);
      known.onsuccess = () => {
        if (known.result) {
          ops.put({ ...known.result, msg: entry.msg }).onsuccess = () => set(true);
          return;
        }
        const count = ops.index('board').count(this.board);
        count.onsuccess = () => {
          if (count.result >= this.limit) fail(new QueueFullError(this.board, this.limit));
          else ops.put(entry).onsuccess = () => set(true);
        };
      };
    });
  }

  /** Forgets op `opId` (it was committed, acknowledged or refused). */
  delete(opId) {
    return this.#run('readwrite', (ops) => { ops.delete([this.board, opId]); });
  }

  /** The ops kept for this board, in the order they were made. */
  ops() {
    return this.#run('readonly', (ops, _boards, set) => {
      const all = ops.index('board').getAll(this.board);
      all.onsuccess = () => set(all.result.sort((a, b) => a.at - b.at).map((e) => e.msg));
    });
  }

  /** Keeps `board` as the last confirmed board seen, at `seq`. */
  saveBoard(board, seq) {
    const entry = { board: this.board, seq, snapshot: JSON.parse(JSON.stringify(board)) };
    return this.#run('readwrite', (_ops, boards) => { boards.put(entry); });
  }

  /** The last board saved: {board, seq}, or null. */
  loadBoard() {
    return this.#run('readonly', (_ops, boards, set) => {
      const r = boards.get(this.board);
      r.onsuccess = () => set(r.result ? { board: r.result.snapshot, seq: r.result.seq } : null);
    });
  }

  /** Closes the database connection. */
  close() {
    this.#db.close();
  }
}
