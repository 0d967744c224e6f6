"""Reads an Autobahn|Testsuite fuzzingclient report (index.json) and prints what it says: case
counts by result for each section, and every case that was not OK with the reason on file.

Exits 1 when a case FAILED (or has no result), unless it is one of KNOWN_FAILURES, whose cause
is outside this server (its close is checked all the same); when fewer cases ran than were asked
for (MIN_CASES for a whole section "N.*", at least one for any other pattern); when a case is NON-STRICT or INFORMATIONAL without an explanation for it
in EXPLANATIONS; or when a case closed other than cleanly (UNCLEAN, WRONG CODE, FAILED BY CLIENT…)
without an explanation for that case in CLOSE_EXPLANATIONS. Exits 0 otherwise. UNIMPLEMENTED (12.x
and 13.x, permessage-deflate, which the run does not offer) counts as skipped.

Usage: python3 summary.py REPORT_DIR AGENT [CASE...]   (the cases or patterns the run asked for;
default sections 1-7 and 10, as Tests/conformance/run.sh runs them)
"""

from __future__ import annotations

import collections
import fnmatch
import json
import sys
from pathlib import Path

# Cases that fail because of libwebsockets 4.1.6 itself, which the server cannot change from its
# side. Each is still printed as FAILED; if one starts to pass, the summary says so.
KNOWN_FAILURES = {
    "2.10": "ten pings in one burst get one pong: libwebsockets 4.1.6 drops a ping that arrives "
    "while its pong to an earlier ping is still unsent (lib/roles/ws/ops-ws.c, 'DROP PING since "
    "one pending'), and answers no ping to the application, so the server never sees them. RFC "
    "6455 5.5.3 lets an endpoint answer only the most recent of several pings; lws answers the "
    "first.",
    "2.11": "the same ten pings sent one byte at a time: whether lws has written the pong to one "
    "ping before the next arrives depends on timing, so this passes on some runs and fails on "
    "others, for the reason of 2.10.",
}
# Of KNOWN_FAILURES, the ones that pass on some runs: their passing is no news.
SOMETIMES_PASS = {"2.11"}

# Why a case is NON-STRICT or INFORMATIONAL with this server.
EXPLANATIONS = {
    "7.1.6": "a 256 KiB text message, a short one, a close and a ping back to back: the echo "
    "endpoint reads nothing more until the echo of a message is written, so both echoes go out "
    "before the close is answered; the testsuite expects only the short one and marks the case "
    "INFORMATIONAL whatever the order, which it leaves to the implementation.",
    "7.13.1": "close code 5000, which RFC 6455 does not define: the server answers 1002.",
    "7.13.2": "close code 65535, which RFC 6455 does not define: the server answers 1002.",
}

# Why a case can close other than cleanly, and the cases in which that is explained: a closing
# behaviour that is not OK passes only in a case listed with it (docs/conformance.md). None is
# now: after failing a connection (1002, 1007) the server closes TCP at once instead of waiting
# for the client's close frame, so the testsuite never has to drop the connection itself (3.1,
# 3.5-3.7, 5.11 and 7.3.2 were "FAILED BY CLIENT" while lws waited 5 s for it).
CLOSE_EXPLANATIONS: dict[str, tuple[set[str], str]] = {}

# How many cases each whole section has (Autobahn|Testsuite 0.8.2): a run of "N.*" that reports
# fewer, because the fuzzing client stopped early or a pattern matched less, fails.
MIN_CASES = {"1": 16, "2": 11, "3": 7, "4": 10, "5": 20, "6": 145, "7": 37, "9": 54, "10": 1}
DEFAULT_CASES = ["1.*", "2.*", "3.*", "4.*", "5.*", "6.*", "7.*", "10.*"]

ORDER = ["OK", "NON-STRICT", "INFORMATIONAL", "UNIMPLEMENTED", "FAILED"]


def verdict(case: str, behavior: str, close: str) -> tuple[bool, str]:
    """Whether a case that is not OK with a clean close still passes, and why. Only what is on
    file passes: a known lws failure, UNIMPLEMENTED, NON-STRICT or INFORMATIONAL with an
    explanation for that case, and a closing behaviour explained for that case."""
    if behavior == "UNIMPLEMENTED":
        return True, "permessage-deflate, which the server does not offer here (the echo endpoint refuses --deflate)."
    passes, why = True, []
    if behavior == "FAILED" and case in KNOWN_FAILURES:
        why.append("known, outside this server: " + KNOWN_FAILURES[case])
    elif behavior in ("NON-STRICT", "INFORMATIONAL") and case in EXPLANATIONS:
        why.append(EXPLANATIONS[case])
    elif behavior != "OK":
        passes = False
        why.append(f"behaviour {behavior}, no explanation on file for {case}")
    # An INFORMATIONAL case's close is INFORMATIONAL too: the explanation of the case covers it.
    informational = behavior == close == "INFORMATIONAL" and case in EXPLANATIONS
    if close != "OK" and not informational:
        cases, explanation = CLOSE_EXPLANATIONS.get(close, (set(), ""))
        if case in cases:
            why.append(explanation)
        else:
            passes = False
            why.append(f"closing behaviour {close}, no explanation on file for {case}")
    return passes, " ".join(why)


def case_key(case: str) -> list[int]:
    return [int(part) for part in case.split(".")]


def missing_cases(results: dict, patterns: list[str]) -> list[str]:
    """Each asked-for pattern that matched fewer cases than it must: MIN_CASES for "N.*" of a
    section listed there, at least one otherwise."""
    short = []
    for pattern in patterns:
        section = pattern[:-2] if pattern.endswith(".*") else None
        need = MIN_CASES.get(section, 1) if section is not None else 1
        ran = sum(1 for case in results if fnmatch.fnmatchcase(case, pattern))
        if ran < need:
            short.append(f"{pattern}: {ran} case(s) ran, at least {need} expected")
    return short


def main() -> int:
    report_dir, agent = Path(sys.argv[1]), sys.argv[2]
    patterns = sys.argv[3:] or DEFAULT_CASES
    index = json.loads((report_dir / "index.json").read_text())
    results = index.get(agent)
    if not results:
        print(f"summary: no results for agent {agent!r} in {report_dir / 'index.json'}")
        return 1

    by_section: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for case, result in results.items():
        by_section[case.split(".")[0]][result.get("behavior", "NO RESULT")] += 1

    print("| section | cases | " + " | ".join(ORDER) + " |")
    print("|---|---|" + "---|" * len(ORDER))
    totals: collections.Counter[str] = collections.Counter()
    for section in sorted(by_section, key=int):
        counts = by_section[section]
        totals.update(counts)
        row = " | ".join(str(counts.get(behavior, 0)) for behavior in ORDER)
        print(f"| {section} | {sum(counts.values())} | {row} |")
    print(f"| all | {sum(totals.values())} | " + " | ".join(str(totals.get(b, 0)) for b in ORDER) + " |")
    unusual = set(totals) - set(ORDER)
    if unusual:
        print(f"other results: {sorted(unusual)}")

    failed = []
    notes: dict[tuple[str, str, str], list[str]] = {}
    print()
    for case in sorted(results, key=case_key):
        result = results[case]
        behavior, close = result.get("behavior", "NO RESULT"), result.get("behaviorClose", "NO RESULT")
        if behavior == "OK" and close == "OK":
            continue
        passes, why = verdict(case, behavior, close)
        if not passes:
            failed.append(case)
        notes.setdefault((behavior, close, why), []).append(case)
    for (behavior, close, why), cases in notes.items():
        print(f"- {', '.join(cases)}: {behavior} (close {close}): {why}")
    for case in sorted(set(KNOWN_FAILURES) - SOMETIMES_PASS, key=case_key):
        if case in results and results[case]["behavior"] != "FAILED":
            print(f"- {case} now passes: take it out of KNOWN_FAILURES in {Path(__file__).name}")

    print()
    known = sum(1 for case in KNOWN_FAILURES if results.get(case, {}).get("behavior") == "FAILED" and case not in failed)
    skipped = totals.get("UNIMPLEMENTED", 0)
    passed = sum(totals.values()) - len(failed) - known - skipped
    if known:
        print(f"{known} case(s) FAILED for libwebsockets 4.1.6's reasons above, not counted (docs/conformance.md)")
    if failed:
        print(f"FAILED: {', '.join(failed)}")
    short = missing_cases(results, patterns)
    for line in short:
        print(f"TOO FEW CASES: {line}")
    print(f"{passed} passed, {len(failed)} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed or short else 0


if __name__ == "__main__":
    sys.exit(main())
