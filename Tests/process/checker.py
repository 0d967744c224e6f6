"""The history checker shared by the failure tests (full disk, database failover, partitions).

From every client's record — what it sent, what it saw committed and in which order (broadcasts,
a resume's `ops`, the boards its welcomes carried), its acks and rejections, the board it shows —
and the final stored log, it decides:

- **nothing acknowledged is lost**: every op a client was told is committed (an `ack`, or its own
  op broadcast back) is in the log, at the seq it was told;
- **nothing applied twice**: the log's seqs run 1..N and each op id is stored once; no client saw
  one op id at two seqs, or two op ids at one seq;
- **prefix-consistent order**: what each client saw is a prefix of the log, in the log's order:
  every op continues the client's seq by exactly one, across resumes; a welcome never goes back
  behind what the client had seen, and the board it carries is the log replayed up to its seq;
- **boards are the log replayed**: the stored board, and each client's final board, equal the
  initial board with the log (up to the client's seq) applied;
- a rejected op is not in the log, and every stored op was sent by somebody.

`check` returns the list of anomalies (empty when the history is sound); `verify` raises with them.
Tests/process/test_checker.py feeds it histories with each kind of anomaly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from harness import COMMITTED, apply, replay


@dataclass
class Record:
    """One client's history. `events` is in the order the client saw things: `("op", seq, op_id)`
    for a committed op it applied (broadcast or a resume's `ops`), `("welcome", seq, board)` for a
    welcome that carried a board, `("resume", seq)` for a welcome with ops (they follow as "op")."""

    name: str
    sent: set[str] = field(default_factory=set)            # op ids it sent (some more than once)
    acks: dict[str, int] = field(default_factory=dict)     # op id -> seq, from `ack`s
    committed: set[str] = field(default_factory=set)       # own op ids it was told are committed
    rejected: dict[str, str] = field(default_factory=dict)  # own op id -> reason
    events: list[tuple] = field(default_factory=list)
    final_seq: int | None = None                           # the seq it shows at the end
    final_board: dict | None = None                        # the board it shows at the end

    @classmethod
    def of(cls, person: Any) -> "Record":
        """From a client that keeps these fields under the same names (Tests/cluster/person.py,
        the disk test's client)."""
        return cls(name=person.name, sent=set(person.sent_ids), acks=dict(person.acks),
                   committed=set(person.committed), rejected=dict(person.rejected), events=list(person.history),
                   final_seq=person.last, final_board=person.board)


def check(initial: dict, log: list[dict], records: list[Record], stored_board: dict | None = None) -> list[str]:
    """The anomalies of the history (`log`: every stored op, as the ops API gives them, in order)."""
    problems: list[str] = []
    by_seq: dict[int, dict] = {}
    seq_of: dict[str, int] = {}
    for i, op in enumerate(log):
        if op["seq"] != i + 1:
            problems.append(f"log: op {i + 1} has seq {op['seq']} (stored seqs must run 1..N)")
        if op["op"] in seq_of:
            problems.append(f"log: op id {op['op']} applied twice (seq {seq_of[op['op']]} and {op['seq']})")
        else:
            seq_of[op["op"]] = op["seq"]
        by_seq.setdefault(op["seq"], op)
    head = len(log)

    # Boards replayed at every seq, computed once as the log goes.
    boards_at: dict[int, dict] = {}
    wanted = {e[1] for r in records for e in r.events if e[0] == "welcome"}
    wanted |= {r.final_seq for r in records if r.final_seq is not None}
    board = json.loads(json.dumps(initial))
    if 0 in wanted:
        boards_at[0] = json.loads(json.dumps(board))
    for op in log:
        try:
            apply(board, op)
        except (AssertionError, KeyError, ValueError, StopIteration) as e:
            problems.append(f"log: seq {op['seq']} ({op['op']}) does not apply to the board before it: {e}")
            break
        if op["seq"] in wanted:
            boards_at[op["seq"]] = json.loads(json.dumps(board))
    if stored_board is not None and replay(initial, log) != stored_board:
        problems.append("the stored board is not its log replayed")

    everything_sent = set().union(*(r.sent for r in records)) if records else set()
    for r in records:
        # Nothing acknowledged lost; acks name the stored seq.
        for op_id, seq in r.acks.items():
            if op_id not in seq_of:
                problems.append(f"{r.name}: {op_id} was acknowledged (seq {seq}) but is not stored: lost")
            elif seq_of[op_id] != seq:
                problems.append(f"{r.name}: {op_id} was acknowledged as seq {seq}, stored at {seq_of[op_id]}")
        for op_id in r.committed:
            if op_id not in seq_of:
                problems.append(f"{r.name}: {op_id} was committed (it was told so) but is not stored: lost")
        for op_id, reason in r.rejected.items():
            if op_id in seq_of:
                problems.append(f"{r.name}: {op_id} was rejected ({reason}) but is stored")
        # Prefix-consistent order, seqs rising by one across resumes.
        last: int | None = None
        at_seq: dict[int, str] = {}
        for event in r.events:
            kind, seq = event[0], event[1]
            if kind == "welcome":
                if last is not None and seq < last:
                    problems.append(f"{r.name}: a welcome at seq {seq} went back behind the {last} it had seen")
                if seq > head:
                    problems.append(f"{r.name}: a welcome at seq {seq}, beyond the stored {head}")
                elif seq in boards_at and event[2] != boards_at[seq]:
                    problems.append(f"{r.name}: the welcome's board at seq {seq} is not the log replayed")
                last = seq
            elif kind == "resume":
                if last is None:
                    problems.append(f"{r.name}: a resume at seq {seq} before any board")
            elif kind == "op":
                op_id = event[2]
                if last is None:
                    problems.append(f"{r.name}: op {op_id} at seq {seq} before any board")
                elif seq != last + 1:
                    problems.append(f"{r.name}: seq {seq} ({op_id}) came after {last}, not after {seq - 1}")
                if seq in at_seq and at_seq[seq] != op_id:
                    problems.append(f"{r.name}: seq {seq} was {at_seq[seq]}, then {op_id}")
                at_seq[seq] = op_id
                stored = by_seq.get(seq)
                if stored is None:
                    problems.append(f"{r.name}: saw seq {seq} ({op_id}), which is not stored")
                elif stored["op"] != op_id:
                    problems.append(f"{r.name}: saw seq {seq} as {op_id}, the log has {stored['op']} there")
                last = seq if last is None else max(last, seq)
            else:
                problems.append(f"{r.name}: unknown event {event!r}")
        seen_ids: dict[str, int] = {}
        for op_id_seq in ((e[2], e[1]) for e in r.events if e[0] == "op"):
            op_id, seq = op_id_seq
            if op_id in seen_ids and seen_ids[op_id] != seq:
                problems.append(f"{r.name}: {op_id} applied twice, at seq {seen_ids[op_id]} and {seq}")
            seen_ids.setdefault(op_id, seq)
        # The board it shows is the log replayed up to its seq.
        if r.final_seq is not None and r.final_board is not None:
            if r.final_seq > head:
                problems.append(f"{r.name}: shows seq {r.final_seq}, beyond the stored {head}")
            elif r.final_seq in boards_at and r.final_board != boards_at[r.final_seq]:
                problems.append(f"{r.name}: its board at seq {r.final_seq} is not the log replayed")
    if records:
        for op in log:
            if op["op"] not in everything_sent:
                problems.append(f"log: seq {op['seq']} ({op['op']}) was sent by no client")
    return problems


def verify(initial: dict, log: list[dict], records: list[Record], stored_board: dict | None = None) -> None:
    """Raises AssertionError listing the anomalies (at most 20) if there are any."""
    problems = check(initial, log, records, stored_board)
    if problems:
        more = f"\n… and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise AssertionError("history checker: " + "\n".join(problems[:20]) + more)


def summary(log: list[dict], records: list[Record]) -> str:
    """One line: how much the checker looked at."""
    acked = sum(len(r.acks) + len(r.committed) for r in records)
    events = sum(len(r.events) for r in records)
    return f"checker: {len(log)} stored ops, {len(records)} clients, {acked} acknowledgements, {events} events: sound"


class Recorder:
    """Keeps a `Record` from the messages a client hands it: `sent(op)` for each op it sends,
    `saw(message)` for each server message (the welcome included). It applies committed ops to
    the board it shows, as a client does."""

    def __init__(self, name: str):
        self.name = name
        self.sent_ids: set[str] = set()
        self.acks: dict[str, int] = {}
        self.committed: set[str] = set()
        self.rejected: dict[str, str] = {}
        self.unavailable: list[str] = []  # op ids refused with `unavailable`
        self.history: list[tuple] = []
        self.board: dict | None = None
        self.last = 0

    def sent(self, op: dict) -> None:
        self.sent_ids.add(op["op"])

    def saw(self, m: dict) -> None:
        kind = m["type"]
        if kind == "welcome":
            if "board" in m:
                self.board, self.last = json.loads(json.dumps(m["board"])), m["seq"]
                self.history.append(("welcome", m["seq"], json.loads(json.dumps(m["board"]))))
            else:
                self.history.append(("resume", m["seq"]))
                for op in m.get("ops", []):
                    self.committed_op(op)
        elif kind in COMMITTED:
            self.committed_op(m)
        elif kind == "ack":
            self.acks[m["op"]] = m["seq"]
            self.committed.add(m["op"])
        elif kind == "reject" and m.get("op") in self.sent_ids:
            self.rejected[m["op"]] = m["reason"]
        elif kind == "error" and m.get("code") == "unavailable" and m.get("op"):
            self.unavailable.append(m["op"])

    def committed_op(self, op: dict) -> None:
        self.history.append(("op", op["seq"], op["op"]))
        if op["op"] in self.sent_ids:
            self.committed.add(op["op"])
        if self.board is not None and op["seq"] == self.last + 1:
            apply(self.board, op)
            self.last = op["seq"]

    def record(self) -> Record:
        return Record.of(self)
