"""Issue 36's search in Chromium: the search box on the start page finds cards on every board
by the beginning of a word, with the words marked in the results; a result opens its board with
the card's panel open; on a board, a result there opens the panel without leaving the page; and
text people typed shows as text (a label made of HTML stays text in the results).

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
import os

from playwright.sync_api import expect


def post_op(server, board, op):
    seq = server.board(board)["seq"]
    status, answer = server.post_json(f"/api/boards/{board}/ops", {"base": seq, **op})
    assert status == 200, (status, answer)
    return answer


def add_card(server, board, zone, label, n, **content):
    post_op(server, board, {"type": "add", "op": f"add-{board}-{n}", "zone": zone, "before": None,
                            "item": {"label": label, **content}})
    items = server.board(board)["board"]["items"]
    return next(i["id"] for i in items if i["label"] == label)


def shot(page, name):
    out = os.environ.get("SHUFFLEBOARD_TEST_OUTPUT")
    if out:
        page.screenshot(path=os.path.join(out, name))


def test_a_result_found_from_the_start_page_opens_its_card(contexts, server):
    server.create("colors", "launch", title="Launch plan")
    server.create("colors", "garden", title="Garden")
    launch_zone = server.board("launch")["board"]["zones"][0]["id"]
    garden_zone = server.board("garden")["board"]["zones"][0]["id"]
    login = add_card(server, "launch", launch_zone, "Login page", 1,
                     description="The form people sign in with; the **login** flow")
    add_card(server, "garden", garden_zone, "Water the login plants", 2)
    hostile = add_card(server, "garden", garden_zone, "<img src=x onerror=alert(1)> logistics", 3)
    post_op(server, "garden", {"type": "comment", "op": "cm-1", "item": hostile, "text": "Logbook says <b>no</b>"})

    page = contexts().new_page()
    page.goto(f"{server.url}/")
    box = page.locator("#search-text")
    expect(box).to_be_visible()
    box.fill("log")
    results = page.locator("#search-list .search-hit")
    expect(results).to_have_count(4)
    expect(page.locator("#search-status")).to_have_text("4 found")
    # Words are marked where they begin with what was typed; the HTML someone typed is text.
    expect(page.locator("#search-list mark").first).to_be_visible()
    expect(page.locator("#search-list img")).to_have_count(0)
    expect(page.locator("#search-list b")).to_have_count(0)
    expect(page.locator("#search-list").get_by_text("<img src=x onerror=alert(1)> logistics").first).to_be_visible()
    expect(page.locator("#search-list").get_by_text("Comment")).to_have_count(1)
    shot(page, "search-start-page.png")

    # Two words: both needed. The result opens its board, with the card's panel open.
    box.fill("login pag")
    expect(results).to_have_count(1)
    hit = results.first
    expect(hit.locator(".search-where")).to_have_text("Launch plan")
    expect(hit.locator(".search-label mark")).to_have_text(["Login", "page"])
    hit.click()
    page.wait_for_url(f"**/?board=launch&card={login}")
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".panel-label")).to_have_value("Login page")
    shot(page, "search-opened-card.png")

    # On the board: a result on this board opens its panel without leaving the page.
    dialog.get_by_role("button", name="Close").click()
    expect(dialog).to_have_count(0)
    page.evaluate("window.stayed = true")
    box.fill("form")
    expect(results).to_have_count(1)
    shot(page, "search-on-board.png")
    results.first.click()
    expect(page.get_by_role("dialog").locator(".panel-label")).to_have_value("Login page")
    assert page.evaluate("window.stayed === true")
    expect(page.locator("#search-results")).to_be_hidden()


def test_nothing_found_says_so_and_escape_closes_the_results(contexts, server):
    server.create("kanban", "quiet", title="Quiet")
    page = contexts().new_page()
    page.goto(f"{server.url}/")
    box = page.locator("#search-text")
    box.fill("zzyzx")
    expect(page.locator("#search-status")).to_have_text("Nothing found")
    box.press("Escape")
    expect(page.locator("#search-results")).to_be_hidden()
