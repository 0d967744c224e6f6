"""A page whose hello is never answered says so and keeps trying (issue 29, finding 11).

The page's first socket reaches nothing that answers (Playwright's WebSocket route stands in for
a cluster's owner that never answers a forwarded hello): after 30 s on the page's clock it says
"No answer from the board — still trying…" instead of "Connecting…" forever, drops the socket and
tries again; the next socket reaches the server and the page connects.
"""
import time

from playwright.sync_api import expect


def test_a_hello_nobody_answers_is_reported_and_retried_until_the_board_answers(contexts, server):
    page = contexts().new_page()
    page.clock.install()
    sockets = []

    def route(ws):
        sockets.append(ws)
        if len(sockets) > 1:
            ws.connect_to_server()  # the board answers from the second socket on
        # The first: open, takes the hello, and never answers.

    page.route_web_socket("**/ws*", route)
    server.create("colors", "silent", title="silent")  # a link to a board that is not there asks first
    page.goto(f"{server.url}/?board=silent&name=Ann")
    conn = page.locator("#conn")
    expect(conn).to_have_attribute("data-state", "connecting")
    # The page's clock runs only when told: it must not run before the first socket is open (the
    # page asks the server who it is and whether the board is there first), or the 30 s would
    # start after the time told. Playwright hands the route its socket between the test's calls.
    deadline = time.monotonic() + 10
    while not sockets:
        assert time.monotonic() < deadline, "the page opened no socket"
        page.wait_for_timeout(50)  # real time: lets Playwright deliver the route's callback
    page.clock.fast_forward(29_000)
    expect(conn).to_have_text("Connecting…")
    assert len(sockets) == 1
    page.clock.fast_forward(1_100)
    # Said, and the page is trying again meanwhile (the toolbar keeps saying it until a welcome).
    expect(page.get_by_text("The board has not answered for 30 s; still trying…")).to_be_visible()
    page.clock.fast_forward(1_000)
    expect(page.locator("#app")).to_have_attribute("data-connected", "true")
    expect(conn).to_have_text("Connected")
    assert len(sockets) == 2
