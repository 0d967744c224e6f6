"""What every Python test runner shares beside its plugins (Tests/pytest-plugins is on PYTHONPATH
for all of them, Tests/preamble.sh): a port for a server that must be told its own port before it
starts (a cluster node's --advertise, an origin, a proxy's backend)."""
import random
import socket


def free_port() -> int:
    """A port nothing listens on now, below the kernel's ephemeral range; a server binds it moments
    later. Not the kernel's pick: that comes from the ephemeral range, where by then another
    test's outgoing connection may have taken it as its source port, and the server would fail
    with "cannot listen" (seen once in CI while the lanes ran side by side)."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        low = int(f.read().split()[0])
    pick = random.SystemRandom()  # not the module's generator, which tests may seed
    for _ in range(500):
        port = pick.randrange(max(1024, low - 12000), low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port below the ephemeral range")
