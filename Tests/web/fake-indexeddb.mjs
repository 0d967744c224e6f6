// A small IndexedDB for node, enough for sdk/queue.js: databases with versions and an upgrade,
// object stores with a keyPath (one field or an array of fields) and plain indexes, transactions
// that complete once their requests are done (or abort, undoing their writes), and requests that
// answer asynchronously as a browser's do. Values are structured clones. Not a general fake.

const keyOf = (value, path) => JSON.stringify(Array.isArray(path) ? path.map((p) => value[p]) : value[path]);

class Request {
  constructor() {
    this.result = undefined;
    this.error = null;
    this.onsuccess = null;
    this.onerror = null;
  }
}

class Store {
  constructor(keyPath) {
    this.keyPath = keyPath;
    this.rows = new Map();
    this.indexes = new Map();
  }
}

class ObjectStoreHandle {
  constructor(tx, store) {
    this.tx = tx;
    this.store = store;
  }

  get(key) { return this.tx.request(() => structuredClone(this.store.rows.get(JSON.stringify(key)))); }
  delete(key) { return this.tx.request(() => { this.tx.write(); this.store.rows.delete(JSON.stringify(key)); }); }
  put(value) {
    return this.tx.request(() => {
      this.tx.write();
      this.store.rows.set(keyOf(value, this.store.keyPath), structuredClone(value));
    });
  }
  count() { return this.tx.request(() => this.store.rows.size); }
  createIndex(name, path) { this.store.indexes.set(name, path); return {}; }
  index(name) {
    const path = this.store.indexes.get(name);
    if (!path) throw new Error(`no index ${name}`);
    const matching = (v) => [...this.store.rows.values()].filter((row) => keyOf(row, path) === JSON.stringify(v));
    return {
      getAll: (v) => this.tx.request(() => structuredClone(matching(v))),
      count: (v) => this.tx.request(() => matching(v).length),
    };
  }
}

class Transaction {
  constructor(db, names, mode) {
    this.db = db;
    this.names = names;
    this.mode = mode;
    this.open = 0;
    this.done = false;
    this.backup = null;
    this.oncomplete = null;
    this.onabort = null;
    this.onerror = null;
    this.error = null;
    // Transactions of a database run one after the other, in the order they were made (a
    // browser's do when their scopes overlap, which every one of sdk/queue.js's does).
    const shared = db.stores;
    this.ready = shared.tail ?? Promise.resolve();
    shared.tail = new Promise((resolve) => { this.finish = resolve; });
    this.ready.then(() => setTimeout(() => this.settle(), 0));
  }

  objectStore(name) {
    if (!this.names.includes(name)) throw new Error(`${name} is not in this transaction`);
    return new ObjectStoreHandle(this, this.db.stores.get(name));
  }

  write() {
    if (this.mode !== 'readwrite' && this.mode !== 'versionchange') throw new Error('ReadOnlyError');
    this.backup ??= new Map([...this.db.stores].map(([n, s]) => [n, new Map(s.rows)]));
  }

  request(run) {
    if (this.done) throw new Error('TransactionInactiveError');
    const r = new Request();
    this.open += 1;
    this.ready.then(() => setTimeout(() => {
      if (this.done) return;
      try {
        r.result = run();
        r.onsuccess?.({ target: r });
      } catch (error) {
        r.error = error;
        r.onerror?.({ target: r });
        this.abort(error);
      }
      this.open -= 1;
      setTimeout(() => this.settle(), 0);
    }, 0));
    return r;
  }

  settle() {
    if (this.done || this.open > 0) return;
    this.done = true;
    this.finish();
    this.oncomplete?.();
  }

  abort(error = null) {
    if (this.done) return;
    this.done = true;
    this.finish();
    this.error = error;
    if (this.backup) for (const [n, rows] of this.backup) this.db.stores.get(n).rows = rows;
    this.onabort?.();
  }
}

class Database {
  constructor(name) {
    this.name = name;
    this.version = 0;
    this.stores = new Map();
    this.closed = false;
  }

  get objectStoreNames() {
    return { contains: (n) => this.stores.has(n) };
  }

  createObjectStore(name, { keyPath }) {
    const store = new Store(keyPath);
    this.stores.set(name, store);
    return new ObjectStoreHandle({ request: () => new Request(), write: () => {} }, store);
  }

  transaction(names, mode = 'readonly') {
    if (this.closed) throw new Error('InvalidStateError: the database is closed');
    const list = Array.isArray(names) ? names : [names];
    for (const n of list) if (!this.stores.has(n)) throw new Error(`NotFoundError: ${n}`);
    return new Transaction(this, list, mode);
  }

  close() { this.closed = true; }
}

/** A fresh IndexedDB factory: `open(name, version)`. Databases outlive connections (a reload). */
export function fakeIndexedDB() {
  const databases = new Map();
  return {
    open(name, version = 1) {
      const r = new Request();
      r.onupgradeneeded = null;
      setTimeout(() => {
        let db = databases.get(name);
        if (!db) databases.set(name, (db = new Database(name)));
        const conn = Object.create(db, { closed: { value: false, writable: true } });
        r.result = conn;
        if (db.version < version) {
          db.version = version;
          r.onupgradeneeded?.({ target: r });
        }
        r.onsuccess?.({ target: r });
      }, 0);
      return r;
    },
  };
}
