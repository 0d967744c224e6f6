"""A browser's EventSource on `GET /api/boards/{id}/events` as is (issue 20): it gets every op,
and when the server ends the stream (`--max-stream-seconds 1`) it reconnects by itself with
`Last-Event-ID` and misses nothing, repeats nothing. Ops are sent with `POST /api/boards/{id}/ops`.
Waits are Playwright waits with timeouts; nothing sleeps to synchronise."""


def post_ops(server, board, first, count):
    for n in range(first, first + count):
        status, body = server.post_json(f"/api/boards/{board}/ops", {
            "type": "add", "op": f"es{n}", "base": 0, "zone": "tray", "before": None,
            "item": {"label": f"card {n}"}})
        assert status == 200 and body["seq"] == n, (status, body)


def test_an_event_source_gets_every_op_across_reconnects(contexts, make_server):
    server = make_server(["--max-stream-seconds", "1"])
    server.create("colors", "es")
    page = contexts().new_page()
    page.goto(server.url + "/")
    page.evaluate("""() => {
        window.seen = []; window.opens = 0; window.resets = 0;
        const source = new EventSource('/api/boards/es/events?since=0');
        source.onopen = () => { window.opens += 1; };
        source.addEventListener('op', e => {
            const op = JSON.parse(e.data);
            window.seen.push([Number(e.lastEventId), op.seq, op.op]);
        });
        source.addEventListener('reset', () => { window.resets += 1; });
        window.source = source;
    }""")
    page.wait_for_function("() => window.opens >= 1", timeout=5000)
    post_ops(server, "es", 1, 5)
    page.wait_for_function("() => window.seen.length >= 5", timeout=5000)
    # The server ends every stream after a second: the EventSource comes back by itself.
    page.wait_for_function("() => window.opens >= 2", timeout=10000)
    post_ops(server, "es", 6, 5)
    page.wait_for_function("() => window.seen.length >= 10", timeout=5000)
    page.wait_for_function("() => window.opens >= 3", timeout=10000)
    post_ops(server, "es", 11, 2)
    page.wait_for_function("() => window.seen.length >= 12", timeout=5000)
    seen = page.evaluate("() => window.seen")
    assert seen == [[n, n, f"es{n}"] for n in range(1, 13)], seen
    assert page.evaluate("() => window.resets") == 0, "every reconnect resumed from its Last-Event-ID"
    page.evaluate("() => window.source.close()")
