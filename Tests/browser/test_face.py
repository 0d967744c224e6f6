"""Issue 35 in Chromium: the board's own toolbar (modes its template uses; no mode letters on a
focused card), a link to a board that does not exist asks before anything is made, a restore is
told to everyone on the board, and on a 390 × 844 phone the toolbar is one row with a menu and a
card can be dragged to a kanban column that starts off screen (edge autoscroll).

Waits are Playwright expectations and wait_for_function with timeouts; nothing sleeps to
synchronise. Screenshots go to test-output/ (and, with SHUFFLEBOARD_UPDATE_SCREENSHOT=1, to docs/).
"""
import os
import shutil

from playwright.sync_api import expect

from harness import OUTPUT, Touch, center

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def keep(page, name, full_page=False):
    path = OUTPUT / name
    page.screenshot(path=str(path), full_page=full_page)
    if os.environ.get("SHUFFLEBOARD_UPDATE_SCREENSHOT") == "1":
        shutil.copy(path, os.path.join(os.path.dirname(__file__), "..", "..", "docs", name))


def test_p_on_a_focused_kanban_card_changes_nothing_and_the_toolbar_shows_the_boards_modes(clients, server):
    server.create("kanban", "kp")
    ann = clients("Ann", board="kp")
    app = ann.page.locator("#app")
    # A kanban board is moved, never swapped or painted: no mode buttons at all.
    expect(app).to_have_attribute("data-mode", "move")
    expect(ann.page.locator(".modes")).to_be_hidden()
    ann.tile("t1").focus()
    for key in ("p", "s", "m"):
        ann.page.keyboard.press(key)
    expect(app).to_have_attribute("data-mode", "move")
    expect(ann.tile("t1")).to_be_focused()
    # Off the card, the letters for modes the board does not offer do nothing either.
    ann.page.evaluate("document.activeElement.blur()")
    ann.page.keyboard.press("p")
    expect(app).to_have_attribute("data-mode", "move")
    # A drag moves (not paints), and that is the only change the server has.
    ann.drag("t1", '[data-zone="done"]')
    expect(ann.page.locator("#app")).to_have_attribute("data-seq", "1")
    snap = server.board("kp")["board"]
    assert "t1" in next(z["items"] for z in snap["zones"] if z["id"] == "done")
    assert not any(i["on"] for i in snap["items"])
    # The toolbar's buttons have names (icons are decoration).
    for name in ("Undo", "Redo", "Add column", "Filter", "History", "Copy link"):
        expect(ann.page.get_by_role("button", name=name, exact=True)).to_be_visible()

    # The colors board swaps and moves, and offers no paint; S and M switch, P does not.
    colors = clients("Bo", board="c1")
    expect(colors.page.locator('[data-mode-button="swap"]')).to_be_visible()
    expect(colors.page.locator('[data-mode-button="move"]')).to_be_visible()
    expect(colors.page.locator('[data-mode-button="paint"]')).to_be_hidden()
    colors.page.keyboard.press("m")
    expect(colors.page.locator("#app")).to_have_attribute("data-mode", "move")
    colors.page.keyboard.press("p")
    expect(colors.page.locator("#app")).to_have_attribute("data-mode", "move")
    colors.tile("t1").focus()
    colors.page.keyboard.press("s")
    expect(colors.page.locator("#app")).to_have_attribute("data-mode", "move")


def test_a_link_to_a_board_that_does_not_exist_asks_and_makes_nothing_until_confirmed(contexts, server):
    # The page's check of the board's address gets 404, which the browser logs.
    contexts.allow("the server responded with a status of 404 (Not Found)")
    page = contexts().new_page()
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.goto(f"{server.url}/?board=sprint-retro&name=Ann")
    expect(page.get_by_role("heading", name="There is no board sprint-retro. Create it?")).to_be_visible()
    # Kanban first, and chosen.
    choices = page.locator("#missing-templates [data-template]")
    expect(choices).to_have_count(5)
    expect(choices.first).to_have_attribute("data-template", "kanban")
    expect(choices.first).to_be_checked()
    # Nothing made: the REST API knows no such board, and the page opened no socket.
    assert server.board("sprint-retro") is None
    assert server.get_json("/api/boards")["boards"] == []
    assert sockets == []
    page.get_by_role("button", name="Create board").click()
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    snap = server.board("sprint-retro")["board"]
    assert [z["id"] for z in snap["zones"]] == ["todo", "doing", "done"] and snap["title"] == "sprint-retro"
    expect(page.locator("#board-title")).to_have_text("sprint-retro")
    assert len(sockets) == 1


def test_a_restore_is_told_to_everyone_on_the_board_with_undo_for_the_one_who_did_it(clients, server):
    server.create("kanban", "kr")
    ann, bo = clients("Ann", board="kr"), clients("Bo", board="kr")
    field = ann.page.locator('[data-add-card="todo"] input')
    field.fill("Retro notes")
    field.press("Enter")  # seq 1
    ann.tile("t4").focus()
    ann.page.keyboard.press("Delete")  # seq 2
    expect(bo.tile("t4")).to_have_count(0)
    bo.page.get_by_role("button", name="History").click()
    entries = bo.page.locator(".history-entry")
    expect(entries).to_have_count(2)
    entries.nth(1).click()
    expect(bo.page.locator("#history-restore")).to_be_enabled()
    bo.page.once("dialog", lambda dialog: dialog.accept())
    bo.page.locator("#history-restore").click()
    # Ann is told who restored the board, and to when (the time of change 1); no Undo for her.
    expect(ann.page.locator("#toast")).to_contain_text("Bo restored the board to how it was on")
    expect(ann.page.locator("#toast")).to_contain_text("(change 1)")
    expect(ann.page.locator("#toast .toast-action")).to_have_count(0)
    expect(ann.tile("t4")).to_have_count(1)
    # Bo, who restored it, can undo it from the notice.
    expect(bo.page.locator("#toast")).to_contain_text("Restored the board to how it was on")
    expect(bo.page.locator("#toast")).to_contain_text("(change 1)")
    bo.page.locator("#toast .toast-action").click()
    expect(ann.tile("t4")).to_have_count(0)
    expect(bo.tile("t4")).to_have_count(0)


def test_on_a_phone_the_toolbar_is_one_row_and_a_card_reaches_a_column_off_screen(contexts, server):
    server.create("kanban", "kphone")
    ctx = contexts(**PHONE)
    page = ctx.new_page()
    page.goto(f"{server.url}/?board=kphone&name=Tess")
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    bar = page.locator(".toolbar").bounding_box()
    assert bar["height"] <= 56, bar
    # The tools are behind the menu, each a 44 px target.
    expect(page.get_by_role("button", name="History")).to_be_hidden()
    page.get_by_role("button", name="Menu").click()
    history = page.get_by_role("button", name="History")
    expect(history).to_be_visible()
    for name in ("Undo", "Redo", "History", "Filter", "Copy link"):
        box = page.get_by_role("button", name=name, exact=True).bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, (name, box)
    keep(page, "phone-menu.png")
    page.keyboard.press("Escape")
    expect(history).to_be_hidden()
    keep(page, "phone.png")

    # Done starts off screen, to the right.
    done = page.locator('[data-zone="done"]')
    assert done.bounding_box()["x"] >= 390
    touch = Touch(ctx, page)
    x, y = center(page, '[data-item="t1"]')
    touch("touchStart", x, y)
    expect(page.locator(".ghost")).to_have_count(1, timeout=2000)
    # To the right edge and held there: the columns scroll under the finger until Done is there.
    for i in range(1, 9):
        touch("touchMove", x + (382 - x) * i / 8, y)
    page.wait_for_function(
        "() => document.querySelector('[data-zone=done]').getBoundingClientRect().right <= 390",
        polling=50, timeout=8000)
    box = done.bounding_box()
    touch("touchMove", box["x"] + box["width"] / 2, y)
    touch("touchMove", box["x"] + box["width"] / 2, y + 4)
    touch("touchEnd")
    expect(page.locator(".ghost")).to_have_count(0)
    expect(page.locator('[data-zone="done"] [data-item="t1"]')).to_have_count(1)
    page.wait_for_function(
        "() => document.querySelector('#app').dataset.seq === '1'", polling=100, timeout=5000)
    assert "t1" in server.zone("kphone", "done")


def test_screenshots_of_the_phone_card_panel_and_dark_mode(contexts, server):
    """Saves test-output/dark.png (a kanban board, dark), phone-panel.png (the card panel on a
    phone, full screen) and kanban.png (a laptop)."""
    server.create("kanban", "kshot", title="Sprint 12")
    for scheme, size, name in (("dark", {"width": 1280, "height": 720}, "dark.png"),
                               ("light", {"width": 1280, "height": 720}, "kanban.png")):
        ctx = contexts(viewport=size, color_scheme=scheme)
        page = ctx.new_page()
        page.goto(f"{server.url}/?board=kshot&name=Ann")
        expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
        page.wait_for_function("() => document.getAnimations().every(a => a.playState !== 'running')", timeout=3000)
        keep(page, name)
        if scheme == "dark":
            page.locator('[data-item="t4"] .tile-label').click()
            expect(page.get_by_role("dialog")).to_be_visible()
            keep(page, "dark-panel.png")
    ctx = contexts(color_scheme="light", **PHONE)
    page = ctx.new_page()
    page.goto(f"{server.url}/?board=kshot&name=Tess")
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    page.locator('[data-item="t1"] .tile-label').click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    box = dialog.bounding_box()
    assert box["width"] >= 389 and box["height"] >= 800, box  # the whole screen
    keep(page, "phone-panel.png")
    # The panel's own actions, where a tile has no room for buttons: Archive closes it and
    # archives the card; Delete removes another, and undo brings it back.
    dialog.get_by_role("button", name="Archive card").tap()
    expect(dialog).to_have_count(0)
    expect(page.locator('[data-item="t1"]')).to_have_count(0)
    page.wait_for_function("() => document.querySelector('#app').dataset.seq === '1'", polling=100, timeout=5000)
    assert server.board("kshot")["board"]["archived"] == ["t1"]
    label = next(i["label"] for i in server.board("kshot")["board"]["items"] if i["id"] == "t2")
    page.locator('[data-item="t2"] .tile-label').click()
    page.get_by_role("dialog").get_by_role("button", name="Delete card").tap()
    expect(page.locator('[data-item="t2"]')).to_have_count(0)
    page.wait_for_function("() => document.querySelector('#app').dataset.seq === '2'", polling=100, timeout=5000)
    assert "t2" not in [i["id"] for i in server.board("kshot")["board"]["items"]]
    expect(page.locator("#toast")).to_contain_text("Removed")
    page.locator("#toast .toast-action").tap()  # the card comes back whole, under a new id
    expect(page.locator(".tile-label", has_text=label)).to_have_count(1)


def test_the_start_page_offers_kanban_first_and_renames_and_deletes_boards(contexts, server):
    server.create("kanban", "team", title="Team")
    server.create("colors", "scratch", title="scratch")
    status, _ = server.post_json("/api/boards/scratch/ops", {"type": "swap", "op": "s1", "base": 0, "a": "t1", "b": "t2"})
    assert status == 200
    # A board described zone by zone was made from no template.
    status, _ = server.post_json("/api/boards", {"id": "custom", "title": "Custom", "zones": [
        {"id": "z", "items": [{"label": "A", "color": "red"}]}]})
    assert status == 201
    listed = {b["id"]: b.get("template") for b in server.get_json("/api/boards")["boards"]}
    assert listed == {"custom": None, "scratch": "colors", "team": "kanban"}, listed
    page = contexts().new_page()
    page.goto(server.url + "/")
    expect(page.locator("#templates [data-template]").first).to_have_attribute("data-template", "kanban")
    expect(page.locator('#templates [data-template="kanban"]')).to_be_checked()
    team = page.locator('#board-list [data-board="team"]')
    expect(team).to_contain_text("Team (team)")
    # Each board says which template made it, by the template's title; one made from none says nothing.
    expect(team.locator(".meta").first).to_have_text(" — Kanban · nobody on it, 0 changes")
    expect(page.locator('#board-list [data-board="scratch"] .meta').first).to_have_text(" — Colors · nobody on it, 1 change")
    expect(page.locator('#board-list [data-board="custom"] .meta').first).to_have_text(" — nobody on it, 0 changes")
    # A board with changes says when the last one was (from its history).
    expect(page.locator('#board-list [data-board="scratch"]')).to_contain_text("1 change · last change")
    expect(page.locator('#board-list [data-board="scratch"] .last-change')).to_contain_text("just now")
    keep(page, "start-page.png", full_page=True)
    # Rename: the page asks for the name and sends one retitle op.
    page.once("dialog", lambda d: d.accept("Team board"))
    page.get_by_role("button", name="Rename Team", exact=True).click()
    expect(team.locator("a")).to_have_text("Team board (team)")
    assert server.board("team")["board"]["title"] == "Team board"
    # Delete: asked first; refused, nothing goes.
    page.once("dialog", lambda d: d.dismiss())
    page.get_by_role("button", name="Delete scratch", exact=True).click()
    expect(page.locator("#board-list [data-board]")).to_have_count(3)
    assert server.board("scratch") is not None
    page.once("dialog", lambda d: d.accept())
    page.get_by_role("button", name="Delete scratch", exact=True).click()
    expect(page.locator("#board-list [data-board]")).to_have_count(2)
    assert server.board("scratch") is None


def test_a_drag_held_at_a_rows_edge_scrolls_the_row_and_reaches_its_far_end(clients, server):
    """Autoscroll sideways with a mouse (issue 35: both axes, every layout): a strip wider than
    the window scrolls while the lifted tile is held at its right edge."""
    server.create("strips", "srow")
    ann = clients("Ann", board="srow", viewport={"width": 420, "height": 700})
    expect(ann.page.locator("#app")).to_have_attribute("data-mode", "move")
    last = ann.order("top")[-1]
    row = ann.page.locator('[data-zone="top"]')
    assert row.evaluate("r => r.scrollWidth > r.clientWidth + 50")
    box = row.bounding_box()
    ann.lift("t1")
    ann.page.mouse.move(box["x"] + box["width"] - 4, box["y"] + box["height"] / 2, steps=10)
    row.evaluate("r => new Promise(done => { const t0 = performance.now(); (function check() {"
                 " if (r.scrollLeft + r.clientWidth >= r.scrollWidth - 1 || performance.now() - t0 > 8000) done();"
                 " else requestAnimationFrame(check); })(); })")
    assert row.evaluate("r => r.scrollLeft + r.clientWidth >= r.scrollWidth - 1")
    ann.hover_to(f'[data-zone="top"] [data-item="{last}"]')
    ann.page.mouse.up()
    expect(ann.page.locator(".ghost")).to_have_count(0)
    expect(ann.page.locator("#app")).to_have_attribute("data-seq", "1")
    assert server.zone("srow", "top")[-1] == "t1"


SMALL_TARGETS = """() => [...document.querySelectorAll(
    'button, a[href], input, select, textarea, summary, [role=button], [data-item]')]
  .filter((e) => {
    const r = e.getBoundingClientRect(), s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && Number(s.opacity) > 0 && !e.disabled
      && !e.closest('[hidden]');
  })
  .map((e) => {
    const r = e.getBoundingClientRect();
    return {name: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30) || e.tagName,
            width: Math.round(r.width), height: Math.round(r.height)};
  })
  .filter((b) => b.width < 44 || b.height < 44)"""


def test_on_a_phone_every_tap_target_of_a_grid_board_is_44_px_and_the_remove_button_leaves_the_tile_its_tap(
        contexts, server):
    """At 390 × 844 with touch, every button, link, field and tile of a colors board (its grid
    tiles' remove ×, the toolbar, the tray, and the menu's tools once open) is at least 44 × 44 px;
    the × takes a tile's corner only, so a tap on the tile's middle is the tile's."""
    server.create("colors", "cgrid")
    page = contexts(**PHONE).new_page()
    page.goto(f"{server.url}/?board=cgrid&name=Tess")
    expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    remove = page.locator('[data-item="t1"] > .remove-card')
    expect(remove).to_be_visible()
    box = remove.bounding_box()
    assert box["width"] >= 44 and box["height"] >= 44, box
    assert page.evaluate(SMALL_TARGETS) == []
    page.screenshot(path=str(OUTPUT / "phone-grid.png"))  # to look at (not in docs/)
    page.get_by_role("button", name="Menu").click()
    expect(page.get_by_role("button", name="History")).to_be_visible()
    assert page.evaluate(SMALL_TARGETS) == []
    page.keyboard.press("Escape")
    # The tile's middle is the tile's own (a tap there opens or lifts it), not the ×'s.
    tile = page.locator('[data-item="t1"]').bounding_box()
    assert tile["width"] > 44 and tile["height"] > 44, tile
    hit = page.evaluate("([x, y]) => document.elementFromPoint(x, y).closest('[data-item], .remove-card')"
                        ".classList.contains('remove-card')",
                        [tile["x"] + tile["width"] / 2, tile["y"] + tile["height"] / 2])
    assert hit is False
    # A tap on the × removes the tile: one op.
    remove.tap()
    expect(page.locator('[data-item="t1"]')).to_have_count(0)
    page.wait_for_function("() => document.querySelector('#app').dataset.seq === '1'", polling=100, timeout=5000)
    assert "t1" not in [i["id"] for i in server.board("cgrid")["board"]["items"]]
