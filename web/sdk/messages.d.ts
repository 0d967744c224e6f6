// Types of what goes over the wire (docs/protocol.md): boards, ops as sent and as committed, and
// the server's messages. Part of the SDK's types; shuffleboard.d.ts re-exports every one of them
// (import them from there). Types only: there is no messages.js.

// ---- Boards.

/** A user on a board; `id` is assigned by the server per connection (`u` and digits). */
export interface User {
  id: string;
  name: string;
  /** A CSS color the server chose. */
  color: string;
  /** The person (issue 32): a token's `sub`, else `hello.member`, else the user id. */
  member: string;
}

/** Someone a card is assigned to. */
export interface Assignee { member: string; name: string }
/** One entry of a card's checklist. */
export interface Check { id: string; text: string; done: boolean }
/** A tag a board defines once and cards carry by id. */
export interface Tag { id: string; name: string; color: string }

export interface Item {
  id: string;
  label: string;
  color: string;
  on: boolean;
  detail?: string;
  /** Markdown source: show it rendered as text, never as HTML. */
  description?: string;
  /** Tag ids of the board's `tags`. */
  tags?: string[];
  assignees?: Assignee[];
  /** `YYYY-MM-DD` or `YYYY-MM-DDTHH:MMZ`. */
  due?: string;
  checklist?: Check[];
  /** How many comments it has (issue 34; absent when none): read them with `GET …/items/{id}/comments`. */
  comments?: number;
}

export type Layout = 'grid' | 'row' | 'list';

export interface Zone {
  id: string;
  items: string[];
  title?: string;
  layout?: Layout;
  columns?: number;
  handle?: boolean;
  axis?: 'x' | 'y';
}

/** A board snapshot (a welcome's `board`). */
export interface Board {
  id: string;
  title: string;
  columns: number;
  mode?: 'swap' | 'move' | 'paint';
  zones: Zone[];
  items: Item[];
  /** Only when the board has tags. */
  tags?: Tag[];
  /** The template the board was made from; absent when not made from one (or made before boards kept it). */
  template?: 'colors' | 'strips' | 'paint' | 'playlist' | 'kanban';
}

// ---- Ops.

export interface SwapBody { type: 'swap'; a: string; b: string }
export interface MoveBody { type: 'move'; item: string; zone: string; before: string | null }
export interface ToggleBody { type: 'toggle'; item: string; on: boolean }
export interface AddBody {
  type: 'add';
  zone: string;
  before: string | null;
  /**
   * `on: true` adds it painted on (as the undo of a remove does); false when left out. The
   * content fields bring a removed card back whole (same bounds as the ops that change them;
   * the server gives each check an id).
   */
  item: {
    label: string;
    color?: string;
    detail?: string | null;
    on?: boolean;
    description?: string;
    due?: string;
    tags?: string[];
    assignees?: Assignee[];
    checklist?: { text: string; done?: boolean }[];
  };
}
export interface EditBody {
  type: 'edit';
  item: string;
  label?: string;
  color?: string;
  /** null clears it. */
  detail?: string | null;
  /** Markdown; null clears it. */
  description?: string | null;
  /** `YYYY-MM-DD` or `YYYY-MM-DDTHH:MMZ`; null clears it. */
  due?: string | null;
}
/** A set change: adding a tag the card has, or removing one it lacks, changes nothing. */
export interface TagBody { type: 'tag'; item: string; add?: string[]; remove?: string[] }
export interface AssignBody { type: 'assign'; item: string; add?: Assignee[]; remove?: string[] }
/** `items`: cards to put the new tag on at once (the undo of a removeTag brings it back on them). */
export interface AddTagBody { type: 'addTag'; tag: { name: string; color: string }; items?: string[] }
export interface EditTagBody { type: 'editTag'; tag: string; name?: string; color?: string }
export interface RemoveTagBody { type: 'removeTag'; tag: string }
export interface AddCheckBody { type: 'addCheck'; item: string; before: string | null; text: string }
export interface EditCheckBody { type: 'editCheck'; item: string; check: string; text?: string; done?: boolean }
export interface RemoveCheckBody { type: 'removeCheck'; item: string; check: string }
/** Someone a comment mentions (`@Name` in its text). */
export type Mention = Assignee;
/** A comment on a card (issue 34): Markdown, 1–4,000 characters; at most 20 mentions. */
export interface CommentBody { type: 'comment'; item: string; text: string; mentions?: Mention[] }
/** Only the comment's author may edit it. */
export interface EditCommentBody { type: 'editComment'; item: string; comment: string; text: string; mentions?: Mention[] }
/** Its author, or an admin, may remove it. */
export interface RemoveCommentBody { type: 'removeComment'; item: string; comment: string }
/** A comment as committed and as `GET …/items/{item}/comments` lists it. */
export interface Comment {
  /** `n<seq>`, chosen by the server. */
  id: string;
  text: string;
  /** Its author. */
  member: string;
  /** The author's name when they wrote it. */
  name: string;
  /** When it was made, ms since 1970. */
  at: number;
  mentions: Mention[];
  /** When it was last edited, ms since 1970. */
  edited?: number;
}
/** A page of a card's comments, newest first. */
export interface CommentsPage { comments: Comment[]; more: boolean; next: string | null }
export interface RemoveBody { type: 'remove'; item: string }
/** 1–200 distinct cards, in order, before `before` in `zone`: one op, all or nothing (issue 36). */
export interface MoveManyBody { type: 'moveMany'; items: string[]; zone: string; before: string | null }
/** 1–200 distinct cards off the zones into the board's archive. */
export interface ArchiveBody { type: 'archive'; items: string[] }
/** 1–200 distinct archived cards back, in order, before `before` in `zone`. */
export interface UnarchiveBody { type: 'unarchive'; items: string[]; zone: string; before: string | null }
export interface NewZone {
  title: string;
  layout?: Layout;
  columns?: number;
  handle?: boolean;
  axis?: 'x' | 'y';
}
export interface AddZoneBody { type: 'addZone'; before: string | null; zone: NewZone }
export interface EditZoneBody { type: 'editZone'; zone: string; title?: string; layout?: Layout; columns?: number }
export interface RemoveZoneBody { type: 'removeZone'; zone: string }
export interface RetitleBody { type: 'retitle'; title: string }
/** Sets the board back to how it was right after op `to` (issue 21): one op, undoable. */
export interface RestoreBody { type: 'restore'; to: number }

/** What an op does, without its id and base. */
export type OpBody =
  | SwapBody | MoveBody | ToggleBody | AddBody | EditBody | RemoveBody
  | AddZoneBody | EditZoneBody | RemoveZoneBody | RetitleBody | RestoreBody
  | TagBody | AssignBody | AddTagBody | EditTagBody | RemoveTagBody | AddCheckBody | EditCheckBody | RemoveCheckBody
  | CommentBody | EditCommentBody | RemoveCommentBody
  | MoveManyBody | ArchiveBody | UnarchiveBody;

export type OpType = OpBody['type'];

/** What `op()` takes: an op body, with an op id and base when the caller chooses them. */
export type OpRequest = OpBody & { op?: string; base?: number };

/** An op message as sent: `op` (a client-chosen id, unique per op) and `base` (the last seq applied). */
export type OpMessage = OpBody & { op: string; base: number };

interface Numbered {
  /** The op id its sender chose. */
  op: string;
  /** The sender's user id. */
  by: string;
  /** The sender's member (issue 32); absent on ops committed before members were. */
  member?: string;
  /** The board's op number: gapless, one more than the op before. */
  seq: number;
}

/** A committed op, as everyone on the board got it. */
export type CommittedOp =
  | (Exclude<OpBody, AddBody | AddZoneBody | RestoreBody | TagBody | AssignBody | AddTagBody | AddCheckBody
      | CommentBody | EditCommentBody>
      & Numbered)
  | ({ type: 'comment'; item: string; comment: Comment } & Numbered)
  | ({ type: 'editComment'; item: string; comment: string; text: string; mentions: Mention[]; edited: number }
      & Numbered)
  | ({ type: 'tag'; item: string; add: string[]; remove: string[] } & Numbered)
  | ({ type: 'assign'; item: string; add: Assignee[]; remove: string[] } & Numbered)
  | ({ type: 'addTag'; tag: Tag; items?: string[] } & Numbered)
  | ({ type: 'addCheck'; item: string; before: string | null; check: Check } & Numbered)
  | ({ type: 'add'; zone: string; before: string | null; item: Item } & Numbered)
  | ({ type: 'restore'; to: number; board: Board } & Numbered)
  | ({ type: 'addZone'; before: string | null; zone: Zone } & Numbered);

/** The committed op of one type. */
export type CommittedOf<T extends OpType> = Extract<CommittedOp, { type: T }>;

/** An op the server said it had committed before (`ack`): the op as sent, with its seq. */
export type AckedOp = OpMessage & { seq: number; ack: true };

/** What an op's promise resolves with. */
export type OpResult<T extends OpType = OpType> = CommittedOf<T> | (AckedOp & { type: T });

/** A drop's action: what the drop commits. */
export type DropAction = { type: 'swap'; with: string } | { type: 'move'; zone: string; before: string | null };

// ---- Server messages.

export interface Welcome {
  type: 'welcome';
  you: string;
  seq: number;
  drags: { item: string; by: string }[];
  users: User[];
  /** On a large board: how many users in all (`users` names only some). */
  userCount?: number;
  /** The board, unless the welcome resumes with `ops`. */
  board?: Board;
  /** The ops after the hello's `since`, in order, when the server still had them. */
  ops?: CommittedOp[];
}

export interface DragStartMessage { type: 'dragStart'; item: string; by: string; at: number; user?: User }
export interface HoverMessage {
  type: 'hover';
  item: string;
  over: string | null;
  zone?: string | null;
  mode?: 'swap' | 'move';
  by: string;
  at: number;
  t?: number;
}
export interface DropMessage { type: 'drop'; item: string; by: string; at: number; reason?: 'left' | 'expired' }

export type RejectReason =
  | 'conflict' | 'held' | 'stale' | 'bad_base' | 'unknown_item' | 'unknown_zone' | 'invalid' | 'not_empty'
  | 'board_full' | 'forbidden' | 'not_holding' | 'cooldown' | 'hold_limit' | 'unknown_tag' | 'unknown_check'
  | 'unknown_comment'
  | 'compacted' | 'archived';

export interface RejectMessage {
  type: 'reject';
  /** null for drag requests. */
  op: string | null;
  reason: RejectReason;
  seq: number;
  by?: string;
  item?: string;
}
export interface AckMessage { type: 'ack'; op: string; seq: number }
export interface ErrorMessage { type: 'error'; code: string; message: string; op?: string }
export interface AuthAnswer { type: 'auth'; role: 'view' | 'edit' | 'admin'; exp?: number }
export interface JoinMessage { type: 'join'; user: User }
export interface LeaveMessage { type: 'leave'; user: User }
export interface PresenceMessage { type: 'presence'; userCount: number; users?: User[] }
export interface PongMessage { type: 'pong' }
/**
 * A new entry in the inbox of this client's member (a mention or an assignment), on any board:
 * sent to every connected client of the member once its op is durable (docs/protocol.md,
 * Mentions and the inbox). `GET /api/inbox` lists the same notices, by the same `id`.
 */
export interface NoticeMessage {
  type: 'notice';
  /** Unique in the server's store; greater for a notice committed later. */
  id: number;
  kind: 'mention' | 'assign';
  board: string;
  item: string;
  /** The card's label when the op was committed. */
  label: string;
  by: { member: string; name: string };
  /** Milliseconds since 1970. */
  at: number;
  /** The op that made it, on `board`. */
  seq: number;
  read: boolean;
}

export type ServerMessage =
  | Welcome | CommittedOp | DragStartMessage | HoverMessage | DropMessage | RejectMessage | AckMessage
  | ErrorMessage | AuthAnswer | JoinMessage | LeaveMessage | PresenceMessage | PongMessage | NoticeMessage;
