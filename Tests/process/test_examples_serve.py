"""examples/serve.py's token endpoint hands its role to anyone for any board (issue 29, finding 8):
started beyond loopback with --auth-secret it says so loudly, before it says where it serves; on
loopback (the default) it does not. Binding 0.0.0.0 sends nothing anywhere: the test only reads
what the process prints."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def first_lines(*args):
    """What serve.py prints on stderr up to the line saying where it serves (bounded: 20 s)."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "examples" / "serve.py"), "--port", "0", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in proc.stderr:
            lines.append(line)
            if "examples on http://" in line or len(lines) > 50:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert any("examples on http://" in line for line in lines), lines
    return "".join(lines)


def test_serve_py_warns_loudly_when_its_token_endpoint_listens_beyond_loopback(tmp_path):
    secret = tmp_path / "secrets.txt"
    secret.write_text("a secret of at least sixteen bytes\n")
    said = first_lines("--host", "0.0.0.0", "--auth-secret", str(secret), "--role", "admin")
    assert "WARNING" in said and "ANYONE" in said and "`admin` token for ANY board" in said, said
    assert said.index("WARNING") < said.index("examples on http://")
    # Loopback, or no token endpoint at all: nothing to warn about.
    assert "WARNING" not in first_lines("--auth-secret", str(secret))
    assert "WARNING" not in first_lines("--host", "0.0.0.0")
