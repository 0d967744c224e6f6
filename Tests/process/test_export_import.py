"""`shuffleboard export` and `import` (issue 4): a board moves between data directories with its
snapshot, seq and op log; import refuses to overwrite unless `--replace`."""

import json
import os
import signal
import subprocess
import time
import uuid

import pytest
from harness import Client, replay, run_cli


def test_export_while_serving_then_import_into_a_fresh_directory(servers, tmp_path):
    source, target = str(tmp_path / "source"), str(tmp_path / "target")
    server = servers("--port", "0", "--data", source, "--snapshot-every", "5")
    client = Client(server, "ex", name="x")
    items = [f"t{i}" for i in range(1, 13)]
    for n in range(23):
        a, b = items[n % 12], items[(n * 5 + 1) % 12]
        op = ({"type": "swap", "a": a, "b": b} if a != b and n % 3 else
              {"type": "move", "item": a, "zone": "tray" if n % 2 else "grid", "before": None} if n % 3 == 0 else
              {"type": "toggle", "item": a, "on": n % 2 == 0})
        client.send({**op, "op": f"x{n}", "base": n})
        assert client.result_of(f"x{n}")["seq"] == n + 1
    client.close()
    snapshot = server.get("/api/boards/ex")
    _, ops = server.all_ops("ex")
    assert snapshot[1]["seq"] == 23

    exported = run_cli(["export", "ex", "--data", source], str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    archive = json.loads(exported.stdout)
    assert archive["format"] == "shuffleboard-board" and archive["board"]["id"] == "ex"
    base = archive["baseSeq"]
    assert base + len(archive["ops"]) == 23
    assert [{k: v for k, v in op.items() if k not in ("time", "name")} for op in archive["ops"]] == ops[base:]
    # Each op records when it was committed by the wall clock, in milliseconds since 1970.
    now_ms = time.time() * 1000
    for op in archive["ops"]:
        assert isinstance(op["time"], int) and abs(op["time"] - now_ms) < 60_000, (op, now_ms)
        assert op["name"] == "x", op  # and who sent it, as they were named on the board (issue 21)
    assert replay(archive["board"], ops[base:]) == snapshot[1]["board"]
    (tmp_path / "ex.json").write_text(exported.stdout)

    missing = run_cli(["export", "nothing", "--data", source], str(tmp_path))
    assert missing.returncode == 1 and "nothing" in missing.stderr, missing.stderr
    # Importing into a directory a server is using is refused.
    busy = run_cli(["import", "ex.json", "--data", source, "--replace"], str(tmp_path))
    assert busy.returncode == 1 and "in use" in busy.stderr, busy.stderr
    server.signal(signal.SIGTERM)
    assert server.wait() == 0

    imported = run_cli(["import", "ex.json", "--data", target], str(tmp_path))
    assert imported.returncode == 0, imported.stderr
    moved = servers("--port", "0", "--data", target)
    assert moved.get("/api/boards/ex") == snapshot
    assert moved.all_ops("ex", since=base) == (23, ops[base:])
    # The board carries on from its seq, and an op id from before the move is still known.
    client = Client(moved, "ex", name="y", since=20)
    assert client.welcome["ops"] == ops[20:]
    client.send({"type": "toggle", "op": "x22", "base": 23, "item": "t1", "on": True})
    assert client.result_of("x22") == {"type": "ack", "op": "x22", "seq": 23}
    client.send({"type": "toggle", "op": "y0", "base": 23, "item": "t1", "on": True})
    assert client.result_of("y0")["seq"] == 24
    client.close()
    moved.signal(signal.SIGTERM)
    assert moved.wait() == 0

    again = run_cli(["import", "ex.json", "--data", target], str(tmp_path))
    assert again.returncode == 1, again.stderr
    assert "ex" in again.stderr and "exists" in again.stderr, again.stderr
    replaced = run_cli(["import", "ex.json", "--data", target, "--replace"], str(tmp_path))
    assert replaced.returncode == 0, replaced.stderr
    moved = servers("--port", "0", "--data", target)
    assert moved.get("/api/boards/ex") == snapshot, "--replace puts the archive's board back (seq 23)"


def test_import_refuses_a_file_that_is_not_an_archive(tmp_path):
    target = tmp_path / "target"
    (tmp_path / "bad.json").write_text('{"format": "something-else"}')
    result = run_cli(["import", "bad.json", "--data", str(target)], str(tmp_path))
    assert result.returncode == 1 and "format" in result.stderr, result.stderr
    result = run_cli(["import", "absent.json", "--data", str(target)], str(tmp_path))
    assert result.returncode == 1 and "absent.json" in result.stderr, result.stderr


POSTGRES = os.environ.get("SHUFFLEBOARD_TEST_POSTGRES")


@pytest.mark.skipif(not POSTGRES, reason="SHUFFLEBOARD_TEST_POSTGRES is not set: no PostgreSQL server to test against")
def test_export_and_import_with_a_postgresql_store(servers, tmp_path):
    # A board made on SQLite, exported, imported into a fresh PostgreSQL database and exported back.
    source = str(tmp_path / "source")
    server = servers("--port", "0", "--data", source, "--snapshot-every", "5")
    client = Client(server, "pg", name="x")
    for n in range(12):
        client.send({"type": "toggle", "op": f"p{n}", "base": n, "item": f"t{n % 12 + 1}", "on": n % 2 == 0})
        assert client.result_of(f"p{n}")["seq"] == n + 1
    client.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    exported = run_cli(["export", "pg", "--data", source], str(tmp_path))
    assert exported.returncode == 0, exported.stderr
    (tmp_path / "pg.json").write_text(exported.stdout)

    database = "p_" + uuid.uuid4().hex
    # The name is made here, of hex digits.
    admin = ["psql", "-q", "-v", "ON_ERROR_STOP=1", POSTGRES, "-c"]
    subprocess.run([*admin, f"CREATE DATABASE {database}"], check=True, capture_output=True)
    try:
        url = POSTGRES.rsplit("/", 1)[0] + "/" + database
        # Export refuses a database no server has set up, and changes nothing.
        unready = run_cli(["export", "pg", "--store", url], str(tmp_path))
        assert unready.returncode == 1 and "schema version 0" in unready.stderr, unready.stderr
        imported = run_cli(["import", "pg.json", "--store", url], str(tmp_path))
        assert imported.returncode == 0, imported.stderr
        assert "imported board pg at seq 12" in imported.stderr
        back = run_cli(["export", "pg", "--store", url], str(tmp_path))
        assert back.returncode == 0, back.stderr
        assert back.stdout == exported.stdout
        again = run_cli(["import", "pg.json", "--store", url], str(tmp_path))
        assert again.returncode == 1 and "exists" in again.stderr, again.stderr
        assert run_cli(["import", "pg.json", "--store", url, "--replace"], str(tmp_path)).returncode == 0
    finally:
        subprocess.run([*admin, f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"], capture_output=True)
