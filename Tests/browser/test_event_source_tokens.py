"""A browser's EventSource on a stream whose token ends (issue 29, finding 1): the stream says
`expired` or `revoked` as its last event; an EventSource left to itself reconnects with its old
token, gets 401 and is CLOSED; one that listens for those events reopens with a fresh token and
the last id it saw, and misses nothing. Waits are Playwright waits with timeouts."""
import json
import urllib.request

from test_auth import secured  # noqa: F401 (a fixture)
from test_token_expiry import mint


def send(server, path, body, token):
    req = urllib.request.Request(server.url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", "authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.status, json.loads(r.read())


def toggle(server, n, token):
    status, body = send(server, "/api/boards/es/ops",
                        {"type": "toggle", "op": f"es{n}", "base": n - 1, "item": "t1", "on": n % 2 == 1}, token)
    assert status == 200 and body["seq"] == n, (status, body)


def test_an_event_source_hears_its_token_end_and_a_listening_one_reopens_missing_nothing(
        contexts, secured):  # noqa: F811
    admin = mint(secured, "*", "1h", role="admin")
    assert send(secured, "/api/boards", {"template": "colors", "id": "es"}, admin)[0] == 201
    editor = mint(secured, "es", "1h")
    first = mint(secured, "es", "3s", role="view")
    fresh = []

    def next_token():
        fresh.append(mint(secured, "es", "1h", role="view"))
        return fresh[-1]

    made = contexts()
    # The left-alone EventSource's reconnect on its expired token is answered 401: Chromium logs it.
    contexts.allow("401")
    contexts.allow("404 (Not Found)")  # Chromium asks /healthz's origin for /favicon.ico.
    page = made.new_page()
    page.expose_function("nextToken", next_token)
    page.goto(secured.url + "/healthz")  # Same origin, no page script of its own.
    page.evaluate("""(first) => {
        window.seen = []; window.ended = []; window.opens = 0; window.last = 0;
        const open = (token, since) => {
            const source = new EventSource(`/api/boards/es/events?since=${since}&token=${token}`);
            source.onopen = () => { window.opens += 1; };
            source.addEventListener('op', e => {
                window.last = Number(e.lastEventId);
                window.seen.push(window.last);
            });
            for (const why of ['expired', 'revoked']) {
                source.addEventListener(why, async e => {
                    window.ended.push([why, JSON.parse(e.data).reason]);
                    source.close();
                    open(await window.nextToken(), window.last);
                });
            }
        };
        open(first, 0);
        window.alone = new EventSource(`/api/boards/es/events?since=0&token=${first}`);
        window.aloneExpired = false;
        window.alone.addEventListener('expired', () => { window.aloneExpired = true; });
    }""", first)
    page.wait_for_function("() => window.opens >= 1", timeout=5000)
    for n in (1, 2, 3):
        toggle(secured, n, editor)
    page.wait_for_function("() => window.seen.length >= 3", timeout=5000)
    # The 3 s token runs out: both streams hear it; the listening one comes back on a fresh token.
    page.wait_for_function("() => window.ended.length >= 1 && window.opens >= 2", timeout=10000)
    assert page.evaluate("() => window.ended") == [["expired", "token expired"]]
    page.wait_for_function("() => window.aloneExpired && window.alone.readyState === EventSource.CLOSED",
                           timeout=10000)
    for n in (4, 5):
        toggle(secured, n, editor)
    page.wait_for_function("() => window.seen.length >= 5", timeout=5000)
    # Revoking the fresh token ends that stream too, at once.
    assert send(secured, "/api/revocations", {"token": fresh[0]}, admin)[0] == 200
    page.wait_for_function("() => window.ended.length >= 2 && window.opens >= 3", timeout=5000)
    assert page.evaluate("() => window.ended")[1] == ["revoked", "token revoked"]
    toggle(secured, 6, editor)
    page.wait_for_function("() => window.seen.length >= 6", timeout=5000)
    assert page.evaluate("() => window.seen") == [1, 2, 3, 4, 5, 6], "nothing missed, nothing twice"
