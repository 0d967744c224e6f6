"""Issue 36 in two Chromium pages: cards selected with the mouse (Ctrl-click, Shift-click a
range) and the keyboard (X, Escape), a selected stack dragged to another column committed as one
`moveMany` that the other page shows, and cards archived and restored from the Archive panel.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
from playwright.sync_api import expect


def zones(server, board):
    return server.board(board)["board"]["zones"]


def last_ops(server, board, n):
    return server.get_json(f"/api/boards/{board}/ops?since=0")["ops"][-n:]


def test_a_selection_made_with_mouse_and_keyboard_moves_as_one_op_seen_on_both_pages(clients, server):
    server.create("kanban", "k1")
    ann, bo = clients("Ann", board="k1"), clients("Bo", board="k1")
    first, second = zones(server, "k1")[0], zones(server, "k1")[1]
    cards = first["items"]
    assert len(cards) >= 3
    bar = ann.page.locator("#selection-bar")

    # Keyboard: X on a focused card selects it, Escape clears.
    ann.tile(cards[1]).focus()
    ann.page.keyboard.press("x")
    expect(bar).to_be_visible()
    expect(bar.locator(".selection-count")).to_have_text("1 selected")
    expect(ann.tile(cards[1])).to_have_attribute("aria-selected", "true")
    ann.page.keyboard.press("Escape")
    expect(bar).to_be_hidden()

    # Mouse: Ctrl-click one, Shift-click another in the column: the range between them.
    ann.tile(cards[0]).click(modifiers=["Control"])
    ann.tile(cards[2]).click(modifiers=["Shift"])
    expect(bar.locator(".selection-count")).to_have_text("3 selected")
    expect(ann.page.get_by_role("dialog")).to_have_count(0)  # a selecting click opens no card
    seq = ann.seq()

    # Dragging one of them drags the stack (with its count) to the other column.
    ann.lift(cards[1])
    expect(ann.page.locator(".ghost .stack-count")).to_have_text("3")
    ann.hover_to(f'[data-zone="{second["id"]}"]')
    ann.page.mouse.up()
    expect(ann.page.locator(".ghost")).to_have_count(0)

    moved = [cards[1], cards[0], cards[2]]  # the lead first, then the others in board order
    for page in (ann, bo):
        page.page.wait_for_function(
            "([zone, ids]) => { const got = [...document.querySelectorAll(`[data-zone=\"${zone}\"] [data-item]`)]"
            ".map(e => e.dataset.item); return ids.every(id => got.includes(id)); }",
            arg=[second["id"], moved])
    op = last_ops(server, "k1", 1)[0]
    assert op["type"] == "moveMany" and op["seq"] == seq + 1 and op["items"] == moved, op
    expect(ann.page.locator("#app")).to_have_attribute("data-seq", str(seq + 1))
    expect(bo.page.locator("#app")).to_have_attribute("data-seq", str(seq + 1))

    # One undo takes the whole stack back, as one op.
    ann.page.click("#undo")
    for page in (ann, bo):
        expect(page.page.locator(f'[data-zone="{first["id"]}"] [data-item="{cards[0]}"]')).to_have_count(1)
    assert last_ops(server, "k1", 1)[0]["type"] == "moveMany"


def test_cards_archived_from_a_selection_are_restored_from_the_panel(clients, server):
    server.create("kanban", "k2")
    ann, bo = clients("Ann", board="k2"), clients("Bo", board="k2")
    first = zones(server, "k2")[0]
    a, b = first["items"][0], first["items"][1]
    ann.tile(a).click(modifiers=["Control"])
    ann.tile(b).click(modifiers=["Control"])
    ann.page.locator("#selection-bar").get_by_role("button", name="Archive").click()
    for page in (ann, bo):
        expect(page.tile(a)).to_have_count(0)
        expect(page.tile(b)).to_have_count(0)
    assert server.board("k2")["board"]["archived"] == [a, b]
    # The filter counts the cards on the board: archived ones are not among them.
    on_board = len(server.board("k2")["board"]["items"]) - 2
    ann.page.get_by_role("button", name="Filter").click()
    ann.page.get_by_label("Filter by due date").select_option("none")
    expect(ann.page.locator("#filter-count")).to_have_text(f"{on_board} of {on_board} cards")
    ann.page.get_by_label("Filter by due date").select_option("")

    # Bo finds one in the Archive panel and restores it; Ann sees it come back.
    toggle = bo.page.locator("#archive-toggle")
    expect(toggle).to_have_text("Archive (2)")
    toggle.click()
    label = next(it["label"] for it in server.board("k2")["board"]["items"] if it["id"] == b)
    bo.page.locator("#archive-search").fill(label)
    rows = bo.page.locator("#archive-list li")
    expect(rows).to_have_count(1)
    rows.get_by_role("button").click()
    expect(ann.tile(b)).to_have_count(1)
    expect(bo.tile(b)).to_have_count(1)
    assert server.board("k2")["board"]["archived"] == [a]
    op = last_ops(server, "k2", 1)[0]
    assert op["type"] == "unarchive" and op["items"] == [b]

    # "Archive all cards in this column", from the panel: Ann's page empties the column.
    rest = zones(server, "k2")[0]["items"]
    bo.page.locator("#archive-column").select_option(first["id"])
    bo.page.locator("#archive-column-go").click()
    for item in rest:
        expect(ann.tile(item)).to_have_count(0)
    assert zones(server, "k2")[0]["items"] == []
