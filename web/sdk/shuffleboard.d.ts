// Types of the shuffleboard JavaScript SDK (shuffleboard.js; docs/sdk.md), for TypeScript users and
// editors. They follow docs/protocol.md; `tsc --noEmit -p Tests/types` checks them against an
// example that uses them (scripts/test.sh).

// ---- Boards, ops and the server's messages: messages.d.ts.

export * from './messages';
import type {
  AckMessage, AddBody, AddCheckBody, AddTagBody, AddZoneBody, ArchiveBody, AssignBody, Assignee,
  AuthAnswer, CommentBody, CommittedOp, DragStartMessage, DropAction, DropMessage, EditBody,
  EditCheckBody, EditCommentBody, EditTagBody, EditZoneBody, ErrorMessage, HoverMessage,
  JoinMessage, LeaveMessage, Mention, MoveBody, MoveManyBody, NewZone, NoticeMessage, OpBody,
  OpMessage, OpRequest, OpResult, OpType, PongMessage, RejectMessage, RejectReason, RemoveBody,
  RemoveCheckBody, RemoveCommentBody, RemoveTagBody, RemoveZoneBody, RestoreBody, RetitleBody,
  ServerMessage, SwapBody, TagBody, ToggleBody, UnarchiveBody, User, Welcome
} from './messages';

// ---- The client.

export type ClientState =
  | 'idle' | 'connecting' | 'joining' | 'open' | 'reconnecting' | 'closed' | 'expired' | 'revoked' | 'unauthorized';

/** Who is on the board. */
export interface Presence {
  users: User[];
  /** On a large board, how many users in all; else null. */
  userCount: number | null;
}

/** The events of a `Client` and what each listener gets. */
export interface ClientEvents {
  state: ClientState;
  connecting: { attempt: number };
  open: Record<string, never>;
  welcome: Welcome;
  op: CommittedOp;
  ack: AckMessage;
  reject: RejectMessage;
  error: ErrorMessage;
  auth: AuthAnswer;
  pong: PongMessage;
  /** A new notice in the inbox of the client's member (from any board). */
  notice: NoticeMessage;
  dragStart: DragStartMessage;
  hover: HoverMessage;
  drop: DropMessage;
  join: JoinMessage;
  leave: LeaveMessage;
  presence: Presence;
  message: ServerMessage;
  close: { code: number; reason: string };
  /** No welcome came `joinTimeout` ms after a socket was opened: the client tries again. */
  stalled: { after: number };
  expired: { token: string | null };
  revoked: { token: string | null };
  unauthorized: { token: string | null };
  warning: { message: string; error?: unknown };
  /** The durable queue could not keep or forget an op (the op is still tracked while the client lives). */
  queueError: { op: string; error: unknown };
}

/**
 * A durable queue of the ops not yet answered (`queue.js`'s `PendingStore` keeps them in IndexedDB
 * per board): the client puts each op it tracks, deletes it once answered, and `restore()` reads
 * back what a client before it left.
 */
export interface OpQueue {
  put(msg: OpMessage): Promise<unknown>;
  delete(opId: string): Promise<unknown>;
  ops?(): Promise<OpMessage[]>;
}

/** The smallest WebSocket the client needs (the browser's, Node 22's, or a test's). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'message' | 'close', listener: (event: any) => void): void;
}

export interface ConnectOptions {
  /** The server (`http://HOST:PORT`, `https://…`) or its WebSocket URL (`ws://HOST:PORT/ws`). */
  url: string;
  board: string;
  /** 1–64 characters; a token's name replaces it. */
  name: string;
  /** An access token (servers with `--auth-secret`). */
  token?: string | null;
  /** Gives a fresh token: asked for at 70–80% of each token's life, and when there is none. */
  getToken?: (() => string | Promise<string>) | null;
  /** Resume from this seq on the first hello (a board kept from before). */
  since?: number | null;
  /** The stable id of the person (1–64 of [A-Za-z0-9_-]), kept across connections; a token's `sub` wins. */
  member?: string | null;
  WebSocket?: new (url: string, protocol: string) => WebSocketLike;
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (handle: any) => void;
  now?: () => number;
  random?: () => number;
  newOpId?: () => string;
  /** How long a socket may go without a welcome before 'stalled' and another try (ms, default 30,000). */
  joinTimeout?: number;
  /** Keeps the ops not yet answered across reloads (`PendingStore` from `queue.js`); see `Client.restore`. */
  queue?: OpQueue | null;
}

/** An op the server did not commit. */
export class OpError extends Error {
  constructor(reason: string, details?: { op?: string | null; by?: string | null; seq?: number | null; message?: string | null; kind?: 'reject' | 'error' | 'closed' });
  /** `reject` (a reject), `error` (an error naming the op) or `closed` (close() came first). */
  readonly kind: 'reject' | 'error' | 'closed';
  /** The reject's reason or the error's code (or `closed`). */
  readonly reason: RejectReason | string;
  readonly op: string | null;
  /** Whose hold or op was in the way (`held`, `conflict`). */
  readonly by: string | null;
  readonly seq: number | null;
}

/** Who is on a board, from the server's messages (welcome, join, leave, presence, a dragStart's user). */
export class Roster {
  readonly users: Map<string, User>;
  /** On a large board, how many users in all; else null. */
  readonly userCount: number | null;
  /** Takes a server message in; true when who is here changed. */
  apply(m: ServerMessage): boolean;
  /** A user by id (a placeholder for one who has left). */
  user(id: string): User;
}

export class Client {
  constructor(options: ConnectOptions);
  /** Who is on the board (`users` and `userCount` are its). */
  readonly roster: Roster;
  readonly url: string;
  readonly board: string;
  readonly name: string;
  /** The last committed seq applied (null before the first welcome). */
  readonly seq: number | null;
  /** This connection's user id. */
  readonly you: string | null;
  readonly users: Map<string, User>;
  readonly userCount: number | null;
  /** Items held: item id → holder's user id (every item of a group's hold names its holder). */
  readonly drags: Map<string, string>;
  readonly state: ClientState;
  /** The token the session runs on. */
  readonly token: string | null;
  /** Ops not yet committed, acknowledged or refused. */
  readonly pending: OpMessage[];
  /** The durable queue, when one was given. */
  readonly queue: OpQueue | null;
  /**
   * Takes back the ops the queue kept (a page before this one never saw them answered): tracked
   * again with their op ids and bases, sent once the session is open. Resolves with them, oldest first.
   */
  restore(): Promise<OpMessage[]>;

  on<K extends keyof ClientEvents>(type: K, listener: (value: ClientEvents[K]) => void): () => void;
  off<K extends keyof ClientEvents>(type: K, listener: (value: ClientEvents[K]) => void): void;

  start(): void;
  close(): void;
  reconnect(): void;
  rename(name: string): void;
  setToken(token: string | null): void;
  resync(options?: { snapshot?: boolean }): void;

  /** Sends a message as it is, when the socket is open. */
  send(message: { type: string; [field: string]: unknown }): boolean;
  /** Commits an op; resolves with it once committed, rejects with an `OpError`. */
  op<B extends OpRequest>(body: B): Promise<OpResult<B['type']>>;
  /** Sends an op message (or a drop carrying one) and keeps it until it is answered. */
  submit(message: OpMessage | { type: 'drop'; item: string; op?: string; base?: number; action?: DropAction }): Promise<OpResult | null>;
  dragStart(item: string): boolean;
  hover(item: string, over: string | null, zone: string | null, mode?: 'swap' | 'move'): boolean;
  drop(item: string): Promise<null>;
  drop(item: string, action: DropAction): Promise<OpResult<'swap' | 'move'>>;
  ping(): boolean;
}

/** Connects to a board; the client starts connecting at once. */
export function connect(options: ConnectOptions): Client;

/** The WebSocket URL for a server URL and a board. */
export function boardSocketURL(url: string, board: string): string;

/** The WebSocket URL for the page at `location` (its own server), naming `board` in the query. */
export function socketURL(location: { protocol: string; host: string }, board?: string | null): string;

// ---- The wire helpers (wire.js), re-exported.

export const SUBPROTOCOL: 'shuffleboard.v1';
export const WS_PATH: '/ws';
export const CLOSE_UNAUTHORIZED: 4401;
export const ID_PATTERN: RegExp;
export const OP_TYPES: ReadonlySet<OpType>;
/** Every op's kind (`place`, `paint`, `edit`, `content`) and the noun a sentence names it by (ops.js). */
export const OPS: Readonly<Record<OpType, { readonly kind: 'place' | 'paint' | 'edit' | 'content'; readonly noun: string }>>;
/** The ops of kind `edit`: a board's content rather than where its tiles are. */
export const EDIT_TYPES: ReadonlySet<OpType>;
/** The op message for `body` with op id `id` and `base`. */
export function opMessage<B extends OpBody>(id: string, base: number, body: B): B & OpMessage;
export function isValidId(s: unknown): s is string;
export function isToken(token: unknown): token is string;
/** A token's expiry (seconds since 1970) as its payload says, unverified; null when it says none. */
export function tokenExpiry(token: string | null | undefined): number | null;
/** The member a token's payload names (`sub`), or null; unverified (the server decides). */
export function tokenMember(token: string | null | undefined): string | null;
/** The role a token's payload names (`r`), or null; unverified (the server decides). */
export function tokenRole(token: string | null | undefined): 'view' | 'edit' | 'admin' | null;
export function newOpId(): string;
/** The messages in one server frame, in order (throws on text that is not JSON). */
export function parseFrame(text: string): ServerMessage[];
export function isCommitted(message: { type: string }): message is CommittedOp;
/** Reconnect delay (ms) for attempt n: exponential from `base`, capped, with jitter. */
export function backoffDelay(attempt: number, options?: { base?: number; cap?: number; random?: () => number }): number;
/** How long after `now` (ms) to refresh a token that expires at `exp` (seconds since 1970). */
export function refreshDelay(exp: number, now: number, random?: () => number): number;

// The message builders (wire.js): each returns the message as docs/protocol.md spells it.
export function hello(board: string, name: string, since?: number, token?: string | null, member?: string | null):
  { type: 'hello'; board: string; name: string; since?: number; token?: string; member?: string };
export function auth(token: string): { type: 'auth'; token: string };
export function swap(op: string, base: number, a: string, b: string): SwapBody & OpMessage;
export function move(op: string, base: number, item: string, zone: string, before: string | null): MoveBody & OpMessage;
export function toggle(op: string, base: number, item: string, on: boolean): ToggleBody & OpMessage;
export function add(op: string, base: number, zone: string, before: string | null, item: AddBody['item']): AddBody & OpMessage;
export function edit(op: string, base: number, item: string, changes: Omit<EditBody, 'type' | 'item'>): EditBody & OpMessage;
export function remove(op: string, base: number, item: string): RemoveBody & OpMessage;
export function addZone(op: string, base: number, before: string | null, zone: NewZone): AddZoneBody & OpMessage;
export function editZone(op: string, base: number, zone: string, changes: Omit<EditZoneBody, 'type' | 'zone'>): EditZoneBody & OpMessage;
export function removeZone(op: string, base: number, zone: string): RemoveZoneBody & OpMessage;
export function retitle(op: string, base: number, title: string): RetitleBody & OpMessage;
export function restore(op: string, base: number, to: number): RestoreBody & OpMessage;
export function tag(op: string, base: number, item: string, add?: string[], remove?: string[]): TagBody & OpMessage;
export function assign(op: string, base: number, item: string, add?: Assignee[], remove?: string[]): AssignBody & OpMessage;
export function addTag(
  op: string, base: number, tag: { name: string; color: string }, items?: string[]): AddTagBody & OpMessage;
export function editTag(op: string, base: number, tag: string, changes: { name?: string; color?: string }): EditTagBody & OpMessage;
export function removeTag(op: string, base: number, tag: string): RemoveTagBody & OpMessage;
export function comment(op: string, base: number, item: string, text: string, mentions?: Mention[]): CommentBody & OpMessage;
export function editComment(op: string, base: number, item: string, comment: string, text: string, mentions?: Mention[]): EditCommentBody & OpMessage;
export function removeComment(op: string, base: number, item: string, comment: string): RemoveCommentBody & OpMessage;
export function addCheck(op: string, base: number, item: string, before: string | null, text: string): AddCheckBody & OpMessage;
export function editCheck(op: string, base: number, item: string, check: string, changes: { text?: string; done?: boolean }):
  EditCheckBody & OpMessage;
export function removeCheck(op: string, base: number, item: string, check: string): RemoveCheckBody & OpMessage;
export function moveMany(op: string, base: number, items: string[], zone: string, before: string | null):
  MoveManyBody & OpMessage;
export function archive(op: string, base: number, items: string[]): ArchiveBody & OpMessage;
export function unarchive(op: string, base: number, items: string[], zone: string, before: string | null):
  UnarchiveBody & OpMessage;
export function dragStart(item: string): { type: 'dragStart'; item: string };
/** A group drag (issue 36): the first item leads; a drop with a move commits one moveMany of all. */
export function dragStartMany(items: string[]): { type: 'dragStart'; items: string[] };
export function hover(item: string, over: string | null, zone: string | null, mode?: 'swap' | 'move'):
  { type: 'hover'; item: string; over: string | null; zone: string | null; mode?: 'swap' | 'move' };
export function drop(item: string, opMessage?: OpMessage | null):
  { type: 'drop'; item: string; op?: string; base?: number; action?: DropAction };
export function opFromDrop(dropMessage: { item: string; op?: string; base?: number; action?: DropAction }): OpMessage | null;

/** The token rules the client runs (tokens.js): pure, each call returns effects. */
export type TokenEffect =
  | { type: 'wake'; token: number; after: number } | { type: 'fetch' } | { type: 'send'; msg: { type: 'auth'; token: string } }
  | { type: 'reconnect' } | { type: 'expired' } | { type: 'revoked' } | { type: 'refused' };
export class TokenKeeper {
  constructor(token: string | null, options?: { canFetch?: boolean; random?: () => number });
  token: string | null;
  welcomed(now: number): TokenEffect[];
  answered(message: AuthAnswer, now: number): TokenEffect[];
  error(message: ErrorMessage, now: number): TokenEffect[];
  wake(token: number, now: number): TokenEffect[];
  fetched(token: unknown, now: number): TokenEffect[];
  fetchFailed(now: number): TokenEffect[];
  closed(code: number, now: number): TokenEffect[];
}
