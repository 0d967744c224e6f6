"""TLS between nodes (issue 22): nodes started with --tls-cert/--tls-key serve only https:// and
wss://, forward to their boards' owners over TLS, and forward only to an owner whose certificate
verifies against --cluster-ca for its --advertise address. A test authority and the nodes'
certificates for 127.0.0.1 are made here with openssl; the third node's certificate is signed by
another authority: a client of its board on another node gets 1013, and that node's log says why.
The cluster key goes in the WebSocket handshake, after TLS, so it never reaches that node."""
import socket
import subprocess
import threading

import pytest
from cluster import free_port
from harness import Client


def openssl(*args: str, cwd) -> None:
    result = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def authority(tmp_path, name: str) -> tuple[str, str]:
    """A certificate authority of its own: (certificate, key)."""
    cert, key = tmp_path / f"{name}-ca.pem", tmp_path / f"{name}-ca.key"
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", f"/CN={name} test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            cwd=tmp_path)
    return str(cert), str(key)


def node_certificate(tmp_path, name: str, ca: tuple[str, str]) -> tuple[str, str]:
    """A server certificate for 127.0.0.1 (an IP address in subjectAltName, as a node's
    --advertise names it) signed by `ca`: (certificate, key)."""
    cert, key, csr = tmp_path / f"{name}.pem", tmp_path / f"{name}.key", tmp_path / f"{name}.csr"
    ext = tmp_path / f"{name}.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\n"
                   "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n"
                   "authorityKeyIdentifier=keyid\nsubjectKeyIdentifier=hash\n")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", str(key),
            "-out", str(csr), "-subj", f"/CN={name}", cwd=tmp_path)
    openssl("x509", "-req", "-in", str(csr), "-CA", ca[0], "-CAkey", ca[1], "-CAcreateserial", "-out", str(cert),
            "-days", "2", "-extfile", str(ext), cwd=tmp_path)
    return str(cert), str(key)


def tls(cert: tuple[str, str]) -> tuple[str, ...]:
    return ("--tls-cert", cert[0], "--tls-key", cert[1])


def make_tls_cluster(clusters, tmp_path, *extra: str):
    """n1 and n2 with certificates the cluster's authority signed, n3 with one another signed."""
    cluster_ca, other_ca = authority(tmp_path, "cluster"), authority(tmp_path, "other")
    good, foreign = node_certificate(tmp_path, "node", cluster_ca), node_certificate(tmp_path, "foreign", other_ca)
    # The test's clients trust both authorities; the nodes trust the cluster's alone.
    clients_ca = tmp_path / "clients-ca.pem"
    clients_ca.write_text(open(cluster_ca[0]).read() + open(other_ca[0]).read())
    return clusters(count=3, extra=("--cluster-ca", cluster_ca[0], *extra),
                    node_extra={"n1": tls(good), "n2": tls(good), "n3": tls(foreign)}, ca=str(clients_ca))


@pytest.fixture(params=["on", "off"], ids=["node-links", "per-connection"])
def tls_cluster(clusters, tmp_path, request):
    """The cluster, forwarding over node links (the default) or one upstream per client."""
    cluster = make_tls_cluster(clusters, tmp_path, "--node-links", request.param)
    cluster.node_links = request.param == "on"
    return cluster


class Eavesdropper:
    """A plain TCP listener on loopback that keeps the first bytes of every connection made to
    it (at most 64 KiB each, within 5 s) and then closes it; stopped by `stop()`."""

    def __init__(self) -> None:
        self.port = free_port()
        self.sock = socket.create_server(("127.0.0.1", self.port))
        self.sock.settimeout(0.2)
        self.captured: list[bytes] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                data = b""
                try:
                    while len(data) < 65536 and (chunk := conn.recv(4096)):
                        data += chunk
                        if b"\r\n\r\n" in data or data[:1] == b"\x16":
                            break  # A whole HTTP head, or a TLS record: enough to tell which.
                except OSError:
                    pass
                self.captured.append(data)

    def stop(self) -> None:
        self.done.set()
        self.thread.join(5)
        self.sock.close()


def test_forwarding_goes_over_tls_to_owners_the_cluster_ca_vouches_for(tls_cluster):
    n1, n2, n3 = tls_cluster.nodes
    assert {n.server.scheme for n in tls_cluster.nodes} == {"https"}

    # n1 owns "secure"; n2 forwards a client of it to n1, whose port speaks TLS only.
    owner = Client(n1.server, "secure", "Owner")
    assert owner.welcome["type"] == "welcome", owner.welcome
    assert tls_cluster.owner("secure") == "n1"
    forwarded = Client(n2.server, "secure", "Forwarded")
    assert forwarded.welcome["type"] == "welcome", forwarded.welcome
    forwarded.send({"type": "toggle", "op": "f-1", "base": forwarded.welcome["seq"], "item": "t1", "on": True})
    assert forwarded.result_of("f-1")["type"] == "toggle"
    assert owner.result_of("f-1")["type"] == "toggle"
    # The owner took the client's address from the forward (its close line says so), or took
    # the node's link (only with the cluster key, which came over TLS).
    forwarded.close()
    if tls_cluster.node_links:
        n1.server.wait_for_log(r"node link connection \d+ from node n2 at 127\.0\.0\.1 opened", timeout=5)
    else:
        n1.server.wait_for_log(r"connection \d+ from 127\.0\.0\.1 \(via 127\.0\.0\.1\) closed", timeout=5)
    # A REST op sent to n2 is relayed to n1 over TLS too (issue 20).
    seq = tls_cluster.board("secure")["seq"]
    status, body = n2.server.http(
        "POST", "/api/boards/secure/ops", body={"type": "toggle", "op": "r-1", "base": seq, "item": "t2", "on": True})
    assert status == 200 and body["op"]["op"] == "r-1", body
    assert owner.result_of("r-1")["type"] == "toggle"

    # n3's certificate comes from another authority: n1 does not forward to it. The hub tries
    # again while n3 holds the lease (three leases), then closes the client with 1013.
    local = Client(n3.server, "foreign", "Local")
    assert local.welcome["type"] == "welcome", local.welcome
    local.send({"type": "toggle", "op": "l-1", "base": local.welcome["seq"], "item": "t1", "on": True})
    assert local.result_of("l-1")["type"] == "toggle"  # stored, so every node can say who owns it
    assert tls_cluster.owner("foreign") == "n3"
    refused = Client(n1.server, "foreign", "Refused", hello=False)
    refused.send({"type": "hello", "board": "foreign", "name": "Refused"})
    error = refused.expect(lambda m: m["type"] in ("welcome", "error"), timeout=4 * tls_cluster.lease + 10)
    assert (error["type"], error["code"]) == ("error", "unavailable"), error
    assert refused.wait_closed() == 1013
    n1.server.wait_for_log(
        rf"not forwarding to the board owner at 127\.0\.0\.1:{n3.port}: its TLS certificate does not verify "
        r"\(unable to get local issuer certificate\) against --cluster-ca", timeout=5)
    # Nor a REST op: its client gets 503 `elsewhere`, and n3 never sees it.
    status, body = n1.server.http(
        "POST", "/api/boards/foreign/ops", body={"type": "toggle", "op": "r-2", "base": 1, "item": "t2", "on": True})
    assert (status, body["error"]) == (503, "elsewhere"), body
    # n3 never saw a WebSocket from n1, so never the cluster key: its only connection is Local's.
    assert "via 127.0.0.1" not in n3.server.log() and "node link" not in n3.server.log()
    for c in (owner, forwarded, local, refused):
        c.close()


def metric(text: str, line_start: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(line_start + " "):
            return float(line.split()[1])
    return None


def test_node_links_go_over_tls_to_owners_the_cluster_ca_vouches_for(clusters, tmp_path):
    """With node links on, n2's two clients of n1's board go over one link, made over TLS (n1
    serves nothing else) and verified against --cluster-ca: each sees the owner's ops in the
    owner's order and the other's drag. (An owner whose certificate another authority signed
    gets no link: the test above, with node links.)"""
    cluster = make_tls_cluster(clusters, tmp_path, "--node-links", "on")
    n1, n2, _ = cluster.nodes
    owner = Client(n1.server, "linked", "Owner")
    assert owner.welcome["type"] == "welcome", owner.welcome
    assert cluster.owner("linked") == "n1"
    a, b = Client(n2.server, "linked", "A"), Client(n2.server, "linked", "B")
    assert a.welcome["type"] == b.welcome["type"] == "welcome", (a.welcome, b.welcome)
    n1.server.wait_for_log(r"node link connection \d+ from node n2 at 127\.0\.0\.1 opened", timeout=5)

    # Ops from the owner's client and from both of n2's: every client sees all three, in one order.
    a.send({"type": "toggle", "op": "a-1", "base": a.welcome["seq"], "item": "t1", "on": True})
    owner.send({"type": "toggle", "op": "o-1", "base": owner.welcome["seq"], "item": "t2", "on": True})
    b.send({"type": "toggle", "op": "b-1", "base": b.welcome["seq"], "item": "t3", "on": True})
    orders = []
    for c in (owner, a, b):
        seen = {}
        while len(seen) < 3:
            m = c.expect(lambda m: m.get("op") in ("a-1", "o-1", "b-1") and m["type"] in ("toggle", "reject"))
            assert m["type"] == "toggle", m
            seen[m["op"]] = m["seq"]
        orders.append(sorted(seen, key=seen.get))
    assert orders[0] == orders[1] == orders[2], orders

    # A's drag: B (on the same node, over the same link) and the owner's client see it and its hover.
    a.send({"type": "dragStart", "item": "t5"})
    a.expect(lambda m: m["type"] == "dragStart" and m["item"] == "t5")
    a.send({"type": "hover", "item": "t5", "over": "t6", "t": 7})
    for c in (owner, b):
        held = c.expect(lambda m: m["type"] == "dragStart" and m["item"] == "t5")
        assert held["by"] == a.welcome["you"], held
        hover = c.expect(lambda m: m["type"] == "hover" and m["item"] == "t5")
        assert (hover["by"], hover["over"], hover["t"]) == (a.welcome["you"], "t6", 7), hover

    # One link from n2, carrying both its clients; n2 holds one forward for them.
    _, text = n1.get("/metrics")
    assert metric(text, 'shuffleboard_node_links{node="n2"}') == 1, text
    assert metric(text, "shuffleboard_node_link_clients") == 2, text
    assert metric(n2.get("/metrics")[1], "shuffleboard_forwards_open") == 1

    for c in (owner, a, b):
        c.close()


@pytest.mark.parametrize("node_links", ["on", "off"])
def test_the_cluster_key_is_never_sent_in_the_clear(clusters, tmp_path, node_links):
    """n2 advertises an address where a plain TCP listener waits instead of n2: n1, forwarding
    a client of n2's board there, must open TLS (a handshake record, 0x16) and send nothing else
    (the listener is no TLS server, so nothing more comes); the client gets 1013 in the end."""
    ca = authority(tmp_path, "cluster")
    good = node_certificate(tmp_path, "node", ca)
    listener = Eavesdropper()
    try:
        cluster = clusters(count=2, extra=("--cluster-ca", ca[0], *tls(good), "--node-links", node_links), ca=ca[0],
                           node_extra={"n2": ("--advertise", f"127.0.0.1:{listener.port}")})
        n1, n2 = cluster.nodes
        local = Client(n2.server, "decoy", "Local")
        assert local.welcome["type"] == "welcome", local.welcome
        local.send({"type": "toggle", "op": "l-1", "base": local.welcome["seq"], "item": "t1", "on": True})
        assert local.result_of("l-1")["type"] == "toggle"
        assert cluster.owner("decoy") == "n2"
        refused = Client(n1.server, "decoy", "Refused", hello=False)
        refused.send({"type": "hello", "board": "decoy", "name": "Refused"})
        error = refused.expect(lambda m: m["type"] in ("welcome", "error"), timeout=4 * cluster.lease + 10)
        assert (error["type"], error["code"]) == ("error", "unavailable"), error
        assert refused.wait_closed() == 1013
        for c in (local, refused):
            c.close()
    finally:
        listener.stop()
    assert listener.captured, "n1 never connected to n2's advertised address"
    for data in listener.captured:
        assert data[:1] == b"\x16", data[:80]  # A TLS handshake record: no HTTP, no header in the clear.
        assert b"x-shuffleboard-cluster-key" not in data.lower() and b"GET /" not in data
