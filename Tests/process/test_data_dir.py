"""Bad data directories (issue 4): exit code 1, a message naming the path and the problem, never a
crash, and never a change to the data that is there."""

import contextlib
import os
import pwd
import random
import signal
import sqlite3
import tempfile

from harness import UNPRIVILEGED, Client, Server

DB = "shuffleboard.sqlite3"


def start_failing(tmp_path, data: str) -> tuple[int, str]:
    """Runs `serve` on `data`, expecting it to refuse; (exit code, stderr)."""
    server = Server(["--port", "0", "--data", data], str(tmp_path))
    try:
        code = server.wait(timeout=20)
        return code, server.stderr_text()
    finally:
        server.stop()


def assert_refused(code: int, stderr: str, path: str, *problem: str) -> None:
    assert code >= 0, f"killed by signal {-code}:\n{stderr}"
    assert code == 1, f"exit code {code}:\n{stderr}"
    assert path in stderr, f"the message does not name {path}:\n{stderr}"
    assert any(p in stderr.lower() for p in problem), f"the message does not say {problem}:\n{stderr}"
    assert "listening" not in stderr


def test_a_regular_file_is_refused(tmp_path):
    path = tmp_path / "plain"
    path.write_bytes(b"not a directory\n")
    code, stderr = start_failing(tmp_path, str(path))
    assert_refused(code, stderr, str(path), "not a directory")
    assert path.read_bytes() == b"not a directory\n"


def test_a_path_under_a_regular_file_is_refused(tmp_path):
    path = tmp_path / "plain"
    path.write_bytes(b"x")
    code, stderr = start_failing(tmp_path, str(path / "data"))
    assert_refused(code, stderr, str(path), "not a directory")
    assert path.read_bytes() == b"x"


def test_an_unreadable_directory_is_refused(tmp_path):
    # Root reads a directory whatever its mode: as root, the server runs as nobody (UNPRIVILEGED),
    # which then owns the data directory, so that its mode alone stops it. The directory is in one
    # nobody may enter (tmp_path's parents are root's alone).
    with tempfile.TemporaryDirectory(prefix="shuffleboard-data-dir-") as base:
        os.chmod(base, 0o755)
        data = os.path.join(base, "data")
        os.mkdir(data, 0o755)
        if UNPRIVILEGED:
            nobody = pwd.getpwnam("nobody")
            os.chown(data, nobody.pw_uid, nobody.pw_gid)
        os.chmod(data, 0)
        server = Server(["--port", "0", "--data", data], base, prefix=UNPRIVILEGED)
        try:
            code, stderr = server.wait(timeout=20), server.stderr_text()
        finally:
            server.stop()
            os.chmod(data, 0o755)
    assert_refused(code, stderr, data, "not readable", "permission denied")


def test_a_garbage_database_is_refused_and_left_alone(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    garbage = random.Random(4).randbytes(64 * 1024)
    (data / DB).write_bytes(garbage)
    code, stderr = start_failing(tmp_path, str(data))
    assert_refused(code, stderr, str(data / DB), "not a database", "corrupt")
    assert (data / DB).read_bytes() == garbage


def test_a_damaged_database_is_refused_and_left_alone(servers, tmp_path):
    """A real database with its pages after the first overwritten."""
    data = tmp_path / "data"
    server = servers("--port", "0", "--data", str(data))
    client = Client(server, "b", name="x")
    client.send({"type": "toggle", "op": "o1", "base": 0, "item": "t1", "on": True})
    assert client.result_of("o1")["seq"] == 1
    client.close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    content = bytearray((data / DB).read_bytes())
    assert len(content) >= 2 * 4096, len(content)
    content[4096:] = random.Random(5).randbytes(len(content) - 4096)
    (data / DB).write_bytes(bytes(content))
    code, stderr = start_failing(tmp_path, str(data))
    assert_refused(code, stderr, str(data / DB), "corrupt", "malformed", "not a database")
    assert (data / DB).read_bytes() == bytes(content)


def test_a_directory_in_use_by_another_server_is_refused(servers, tmp_path):
    data = tmp_path / "data"
    first = servers("--port", "0", "--data", str(data))
    client = Client(first, "b", name="x")
    client.send({"type": "toggle", "op": "o1", "base": 0, "item": "t1", "on": True})
    assert client.result_of("o1")["seq"] == 1
    before = (data / DB).read_bytes()
    code, stderr = start_failing(tmp_path, str(data))
    assert_refused(code, stderr, str(data), "in use")
    assert str(first.proc.pid) in stderr, "the message names the pid holding the directory"
    assert (data / DB).read_bytes() == before
    # The first server is unharmed.
    client.send({"type": "toggle", "op": "o2", "base": 1, "item": "t1", "on": False})
    assert client.result_of("o2")["seq"] == 2
    client.close()


def test_a_database_from_a_newer_shuffleboard_is_refused_and_left_alone(servers, tmp_path):
    data = tmp_path / "data"
    server = servers("--port", "0", "--data", str(data))
    Client(server, "b", name="x").close()
    server.signal(signal.SIGTERM)
    assert server.wait() == 0
    with contextlib.closing(sqlite3.connect(data / DB)) as db:
        db.execute("PRAGMA user_version = 999")
        db.commit()
    before = (data / DB).read_bytes()
    code, stderr = start_failing(tmp_path, str(data))
    assert_refused(code, stderr, str(data / DB), "newer")
    assert (data / DB).read_bytes() == before
