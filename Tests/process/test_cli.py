"""The command line (issue 2): help, version, usage errors with exit code 2, port 0, signals."""

import pathlib
import re
import signal
import time

import pytest
from harness import Client, run_cli


def test_help_exits_0_with_usage(tmp_path):
    for args in (["--help"], ["-h"], ["serve", "--help"]):
        result = run_cli(args, str(tmp_path))
        assert result.returncode == 0, (args, result.stderr)
        assert "USAGE" in result.stdout and "--port" in result.stdout, args


def test_version_prints_the_version(tmp_path):
    result = run_cli(["--version"], str(tmp_path))
    assert result.returncode == 0
    assert re.fullmatch(r"shuffleboard \d+\.\d+\.\d+\s*", result.stdout), result.stdout


@pytest.mark.parametrize(
    "args, named",
    [
        (["serve", "--bogus"], "--bogus"),
        (["frobnicate"], "frobnicate"),
        (["serve", "--port", "abc"], "--port"),
        (["serve", "--port", "70000"], "--port"),
        (["serve", "--port", "-1"], "--port"),
        (["serve", "--port"], "--port"),
        (["serve", "--port=abc"], "--port"),
        (["serve", "--log-level", "loud"], "--log-level"),
        (["serve", "--create-boards", "maybe"], "--create-boards"),
        (["serve", "--snapshot-every", "0"], "--snapshot-every"),
        (["serve", "--hold-timeout", "soon"], "--hold-timeout"),
        (["serve", "--hold-cooldown", "-1"], "--hold-cooldown"),
        (["serve", "--max-holds-per-address", "many"], "--max-holds-per-address"),
        (["serve", "--max-write-bytes", "512"], "--max-write-bytes"),
        (["serve", "--echo-path", "echo"], "--echo-path"),
        (["serve", "--echo-path", "/ws"], "--echo-path"),
        (["serve", "--echo-path", "/echo", "--deflate"], "--echo-path"),
        (["serve", "--echo-max-message-bytes", "1"], "--echo-max-message-bytes"),
        (["serve", "--forward-timeout", "0"], "--forward-timeout"),
        (["serve", "--node-links", "maybe"], "--node-links"),
        (["serve", "--node-links"], "--node-links"),
        (["serve", "--node", "bad name"], "--node"),
        (["serve", "--node", ""], "--node"),
        (["serve", "--advertise", "10.0.0.5"], "--advertise"),
        (["serve", "--advertise", "10.0.0.5:0"], "--advertise"),
        (["serve", "--advertise", "a/b:80"], "--advertise"),
        (["serve", "--advertise", "node-2.internal:8080"], "--advertise"),
        (["serve", "--trusted-proxy", "haproxy.local"], "--trusted-proxy"),
        (["serve", "--trusted-proxy", "10.0.0.1:80"], "--trusted-proxy"),
        (["serve", "--advertise", "10.0.0.256:8080"], "--advertise"),
        (["serve", "--max-pending-per-address", "-1"], "--max-pending-per-address"),
        (["serve", "--max-pending-per-address", "many"], "--max-pending-per-address"),
        (["serve", "--first-byte-timeout", "soon"], "--first-byte-timeout"),
        (["serve", "--first-byte-timeout", "-1"], "--first-byte-timeout"),
        (["serve", "--lease", "0.1"], "--lease"),
        (["serve", "--store-pipeline", "0"], "--store-pipeline"),
        (["serve", "--store-pipeline", "17"], "--store-pipeline"),
        (["serve", "--store-writers", "0"], "--store-writers"),
        (["serve", "--store-writers", "17"], "--store-writers"),
        (["serve", "--lease", "soon"], "--lease"),
        (["export"], "export"),
        (["import"], "import"),
    ],
)
def test_usage_errors_exit_2_with_a_message(tmp_path, args, named):
    data = tmp_path / "data"
    result = run_cli([*args, "--data", str(data)] if args[0] == "serve" else args, str(tmp_path), timeout=10)
    assert result.returncode == 2, (args, result.returncode, result.stderr)
    assert named in result.stderr, result.stderr
    assert not data.exists(), "a usage error must not touch the data directory"


def test_port_0_logs_the_chosen_port_and_serves_there(servers, tmp_path):
    server = servers("--port", "0", "--data", str(tmp_path / "data"))
    assert 0 < server.port < 65536
    status, body = server.get("/healthz")
    assert status == 200 and body["status"] == "ok"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_closes_clients_with_1001_and_exits_0(servers, tmp_path, sig):
    server = servers("--port", "0", "--data", str(tmp_path / "data"))
    clients = [Client(server, "sig", name=f"c{i}") for i in range(3)]
    started = time.monotonic()
    server.signal(sig)
    for client in clients:
        assert client.wait_closed() == 1001
        client.close()
    assert server.wait(timeout=10) == 0
    assert time.monotonic() - started < 5, "the server must stop promptly"


@pytest.mark.parametrize(
    "url, code, says",
    [
        ("mysql://ada:hunter2@127.0.0.1/boards", 2, "--store takes postgresql://"),
        # Port 1 on loopback: nothing listens, the connection is refused at once.
        ("postgresql://ada:hunter2@127.0.0.1:1/boards", 1, "postgresql://ada@127.0.0.1:1/boards: cannot connect"),
        ("postgresql://ada:hunter2@[::1/boards", 1, "not a PostgreSQL connection URL"),
    ],
)
def test_a_bad_or_unreachable_store_exits_with_a_clear_message_and_no_password(tmp_path, url, code, says):
    for args in (["serve", "--port", "0", "--store", url], ["export", "b", "--store", url]):
        result = run_cli(args, str(tmp_path), timeout=30)
        assert result.returncode == code, (args, result.returncode, result.stderr)
        assert says in result.stderr, result.stderr
        assert "hunter2" not in result.stderr + result.stdout


def test_store_excludes_data_and_memory(tmp_path):
    for args in (["--store", "sqlite:x", "--data", "y"], ["--memory", "--store", "sqlite:x"]):
        result = run_cli(["serve", *args], str(tmp_path), timeout=10)
        assert result.returncode == 2 and "cannot be combined" in result.stderr, result.stderr


# Every flag `serve` took before the settings table (issue 31): names and meanings are kept.
SERVE_FLAGS = [
    "--advertise", "--allow-no-origin", "--allow-origin", "--auth-secret", "--board-creations",
    "--cluster-ca", "--cluster-key", "--connect-rate", "--create-boards", "--data",
    "--default-template", "--deflate", "--echo-max-message-bytes", "--echo-path", "--event-loop",
    "--first-byte-timeout", "--forward-timeout", "--hello-timeout", "--history", "--hold-cooldown",
    "--hold-lifetime", "--hold-timeout", "--host", "--hover-pacing", "--http-timeout",
    "--keep-op-bytes", "--keep-ops", "--keep-snapshot-bytes", "--lease", "--log-format", "--log-level",
    "--max-board-bytes", "--max-boards", "--max-connections-per-address", "--max-header-buffers",
    "--max-header-bytes", "--max-history-reads", "--max-history-reads-per-address",
    "--max-holds-per-address", "--max-http-answer-bytes", "--max-message-bytes", "--max-page-bytes",
    "--max-pending-bytes", "--max-pending-per-address", "--max-stream-seconds", "--max-streams",
    "--max-streams-per-address", "--max-unstored-ops", "--max-users-per-board", "--max-write-bytes",
    "--memory", "--message-rate", "--metrics-token", "--metrics-top-boards", "--node", "--node-links",
    "--op-rate", "--port", "--presence-limit", "--ring-bytes", "--shutdown-write-retry",
    "--snapshot-every", "--store", "--store-pipeline", "--store-writers",
    "--stream-keepalive", "--stream-stall-seconds",
    "--tls-cert", "--tls-key", "--trusted-proxy", "--unsent-bytes", "--web",
]


def test_help_lists_every_serve_flag_with_its_default(tmp_path):
    result = run_cli(["serve", "--help"], str(tmp_path))
    assert result.returncode == 0, result.stderr
    listed = set(re.findall(r"^  (--[a-z-]+)", result.stdout, re.MULTILINE))
    assert set(SERVE_FLAGS) <= listed, sorted(set(SERVE_FLAGS) - listed)
    # Each setting's help ends with its default, read from where the setting goes.
    assert "(default 30)" in result.stdout and "(default 127.0.0.1)" in result.stdout


def test_readme_configuration_table_is_the_settings_table(tmp_path):
    """README's configuration table is made from the settings table (Sources/shuffleboard/Settings+*.swift);
    after changing a setting, scripts/readme-settings.sh writes it again."""
    result = run_cli(["serve", "--settings-markdown"], str(tmp_path))
    assert result.returncode == 0, result.stderr
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    written = readme.split("<!-- settings:begin -->\n", 1)[1].split("<!-- settings:end -->", 1)[0]
    assert written.strip() == result.stdout.strip(), "README's configuration table differs: run scripts/readme-settings.sh"
    flags = re.findall(r"^\| `(--[a-z-]+)", result.stdout, re.MULTILINE)
    assert set(SERVE_FLAGS) <= set(flags) and len(flags) == len(set(flags))


def test_settings_take_their_units(servers, tmp_path):
    """Seconds with a fraction where the setting is a duration, and the limits 0 turns off."""
    server = servers(
        "--port", "0", "--memory", "--lease", "0.5", "--stream-keepalive", "0.05", "--hover-pacing", "0.5",
        "--op-rate", "0", "--connect-rate", "0", "--max-stream-seconds", "0")
    status, body = server.get("/healthz")
    assert status == 200 and body["status"] == "ok"
