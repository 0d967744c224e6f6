"""The history checker (checker.py) on made-up histories: a sound one passes, and each kind of
anomaly — an acknowledged op lost, an op applied twice, a gap, a client that saw another order or
skipped a seq, a welcome that went back, a board that is not its log replayed, a rejected op
stored — is caught. No server: these run in milliseconds."""

import copy

import pytest

from checker import Record, check, verify
from harness import replay, template

INITIAL = template("b")


def op(seq: int, op_id: str, kind: str = "toggle", **fields) -> dict:
    if kind == "toggle":
        fields = {"item": fields.get("item", "t1"), "on": fields.get("on", seq % 2 == 1)}
    return {"type": kind, "seq": seq, "op": op_id, **fields}


def sound() -> tuple[list[dict], list[Record]]:
    """Two clients; a sends a1 a2 a3, b sends b1 b2. b resumes once (ops after its seq 2); a joins
    late with a board at seq 1."""
    log = [op(1, "b1", item="t2"), op(2, "a1", item="t1"), op(3, "b2", "swap", a="t1", b="t3"),
           op(4, "a2", item="t4"), op(5, "a3", "move", item="t5", zone="tray", before=None)]
    a = Record("a", sent={"a1", "a2", "a3", "a4"}, acks={}, committed={"a1", "a2", "a3"}, rejected={"a4": "held"},
               events=[("welcome", 1, replay(INITIAL, log[:1])), ("op", 2, "a1"), ("op", 3, "b2"),
                       ("op", 4, "a2"), ("op", 5, "a3")],
               final_seq=5, final_board=replay(INITIAL, log))
    b = Record("b", sent={"b1", "b2"}, acks={"b2": 3}, committed={"b1", "b2"},
               events=[("welcome", 0, copy.deepcopy(INITIAL)), ("op", 1, "b1"), ("op", 2, "a1"),
                       ("resume", 5), ("op", 3, "b2"), ("op", 4, "a2"), ("op", 5, "a3")],
               final_seq=5, final_board=replay(INITIAL, log))
    return log, [a, b]


def test_a_sound_history_passes():
    log, records = sound()
    assert check(INITIAL, log, records, replay(INITIAL, log)) == []
    verify(INITIAL, log, records, replay(INITIAL, log))


def lose_acknowledged(log, records):
    del log[4]  # a3, which a was told is committed


def lose_acked_op(log, records):
    records[1].acks["b9"] = 6  # an ack for an op that is not stored


def ack_wrong_seq(log, records):
    records[1].acks["b2"] = 4


def apply_twice(log, records):
    log.append(dict(log[1], seq=6))  # a1 stored again at seq 6


def gap_in_log(log, records):
    log[4] = dict(log[4], seq=7)


def skipped_seq(log, records):
    records[0].events.remove(("op", 3, "b2"))


def other_order(log, records):
    events = records[0].events
    events[2], events[3] = ("op", 3, "a2"), ("op", 4, "b2")


def seen_not_stored(log, records):
    records[0].events.append(("op", 6, "ghost"))


def seen_twice(log, records):
    records[1].events.append(("op", 6, "a1"))
    log.append(op(6, "a4"))
    records[0].sent.add("a4")
    del records[0].rejected["a4"]


def welcome_went_back(log, records):
    records[1].events.append(("welcome", 3, replay(INITIAL, log[:3])))


def welcome_board_wrong(log, records):
    records[0].events[0] = ("welcome", 1, copy.deepcopy(INITIAL))


def final_board_wrong(log, records):
    records[1].final_board = replay(INITIAL, log[:4])


def rejected_stored(log, records):
    records[0].rejected["a3"] = "held"


def stored_never_sent(log, records):
    log.append(op(6, "nobody"))


ANOMALIES = [lose_acknowledged, lose_acked_op, ack_wrong_seq, apply_twice, gap_in_log, skipped_seq, other_order,
             seen_not_stored, seen_twice, welcome_went_back, welcome_board_wrong, final_board_wrong,
             rejected_stored, stored_never_sent]


@pytest.mark.parametrize("anomaly", ANOMALIES, ids=[f.__name__ for f in ANOMALIES])
def test_each_anomaly_is_caught(anomaly):
    log, records = sound()
    anomaly(log, records)
    problems = check(INITIAL, log, records)
    assert problems, f"{anomaly.__name__} was not caught"
    with pytest.raises(AssertionError, match="history checker"):
        verify(INITIAL, log, records)


def test_a_stored_board_that_is_not_the_log_replayed_is_caught():
    log, records = sound()
    assert check(INITIAL, log, records, replay(INITIAL, log[:4]))
