"""Every board of the design articles in a real browser, two people at a time: strips, paint,
a handle-only playlist, kanban, and the start page that makes them.

Boards are made with `POST /api/boards {"template"}` (or from the start page). Waits are
Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
import base64
import os
import re
import shutil

from playwright.sync_api import expect

from harness import OUTPUT, RECORD_SOCKETS, ROOT, Touch, center
from test_board import wait_same_as_server

STRIPS = ("top", "bottom")
KANBAN = ("todo", "doing", "done")


def order(client, zone):
    return client.order(zone)


def ops(server, board):
    return server.get_json(f"/api/boards/{board}/ops")["ops"]


# True when the hand of the one other person is on the centre of `item`'s tile (eased there).
HAND_ON = """(item) => {
  const h = document.querySelector('.hand').getBoundingClientRect();
  const t = document.querySelector(`[data-item="${item}"]`).getBoundingClientRect();
  return Math.abs(h.left - (t.left + t.width / 2)) < 3 && Math.abs(h.top - (t.top + t.height / 2)) < 3;
}"""


def test_strips_move_both_ways_and_a_drop_on_empty_space_appends(clients, server):
    server.create("strips", "s1")
    ann, bo = clients("Ann", board="s1"), clients("Bo", board="s1")
    for c in (ann, bo):
        expect(c.page.locator('[data-zone="top"]')).to_have_attribute("data-layout", "row")
        expect(c.page.locator('[data-zone="bottom"]')).to_have_attribute("data-layout", "row")
        expect(c.page.locator("#app")).to_have_attribute("data-mode", "move")  # rows suggest move
    assert ann.order("top") == ["t1", "t2", "t3", "t4", "t5", "t6"] and ann.order("bottom") == ["t7", "t8"]
    # While Ann holds Square over the bottom strip, Bo sees it previewed there, her hand on it.
    ann.lift("t2")
    ann.hover_to('[data-zone="bottom"]')
    bo.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-zone=bottom] [data-item]')].map(e => e.dataset.item).join() === 't7,t8,t2'",
        timeout=3000)
    bo.page.wait_for_function(HAND_ON, arg="t2", timeout=3000)
    ann.page.mouse.up()
    wait_same_as_server(server, "s1", ann, bo, zones=STRIPS)
    ann.drag("t2", '[data-item="t3"]')  # and back
    want = wait_same_as_server(server, "s1", ann, bo, zones=STRIPS)
    assert want["top"] == ["t1", "t2", "t3", "t4", "t5", "t6"] and want["bottom"] == ["t7", "t8"]
    # Top → bottom, dropped on the bottom strip's empty space: appended (before: null).
    ann.drag("t1", '[data-zone="bottom"]')
    bo.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-zone=bottom] [data-item]')].map(e => e.dataset.item).join() === 't7,t8,t1'",
        timeout=3000)
    first = ops(server, "s1")[2]
    assert (first["type"], first["item"], first["zone"], first["before"]) == ("move", "t1", "bottom", None)
    # Bottom → top, onto a tile: it takes that tile's place.
    bo.drag("t7", '[data-item="t3"]')
    # Within each strip: Ann reorders the top, Bo the bottom.
    ann.drag("t6", '[data-item="t2"]')
    bo.drag("t1", '[data-item="t8"]')
    want = wait_same_as_server(server, "s1", ann, bo, zones=STRIPS)
    assert want["top"] == ["t6", "t2", "t7", "t3", "t4", "t5"]
    assert want["bottom"] == ["t1", "t8"]
    # From the keyboard: a tile of the top strip goes down into the bottom strip, in line.
    ann.page.locator('[data-item="t2"]').focus()
    ann.page.keyboard.press("Space")
    ann.page.keyboard.press("ArrowDown")
    expect(ann.page.locator("#live")).to_contain_text("Over Leaf")
    ann.page.keyboard.press("Space")
    want = wait_same_as_server(server, "s1", ann, bo, zones=STRIPS)
    assert want["bottom"] == ["t1", "t2", "t8"]


def test_a_paint_stroke_over_small_cells_toggles_each_once_and_the_other_page_sees_it(clients, server):
    server.create("paint", "p1")
    ann, bo = clients("Ann", board="p1"), clients("Bo", board="p1")
    cells = ann.page.locator('[data-zone="cells"]')
    expect(cells).to_have_attribute("data-layout", "grid")
    expect(cells.locator("[data-item]")).to_have_count(64)
    box = ann.tile("t1").bounding_box()
    assert box["width"] < 60 and box["height"] < 60, box  # small cells
    # Eight to a row: t9 is right under t1.
    below = ann.tile("t9").bounding_box()
    assert abs(below["x"] - box["x"]) < 1 and below["y"] > box["y"] + box["height"]
    ann.mode("paint")
    x1, y1 = ann.center('[data-item="t1"]')
    x4, y4 = ann.center('[data-item="t4"]')
    x12, y12 = ann.center('[data-item="t12"]')
    ann.page.mouse.move(x1, y1)
    ann.page.mouse.down()
    ann.page.mouse.move(x4, y4, steps=16)  # across t2, t3 to t4
    ann.page.mouse.move(x12, y12, steps=8)  # down to t12
    ann.page.mouse.move(x1, y1, steps=24)  # back over cells already toggled (and t10, t11 maybe)
    ann.page.mouse.up()
    on = ann.page.eval_on_selector_all('[data-on="true"]', "els => els.map(e => e.dataset.item)")
    assert {"t1", "t2", "t3", "t4", "t12"} <= set(on), on
    for item in on:
        expect(bo.tile(item)).to_have_attribute("data-on", "true")
    expect(bo.page.locator('[data-on="true"]')).to_have_count(len(on))
    snap = server.board("p1")
    assert sorted(i["id"] for i in snap["board"]["items"] if i["on"]) == sorted(on)
    assert snap["seq"] == len(on)  # one toggle per cell: none was toggled twice


HANDLE = '[data-item="{}"] [data-handle]'


def test_a_playlist_row_moves_only_by_its_handle_and_only_up_and_down(clients, server):
    server.create("playlist", "pl")
    ann = clients("Ann", board="pl", before_goto=lambda page: page.add_init_script(RECORD_SOCKETS))
    bo = clients("Bo", board="pl")
    songs = ann.page.locator('[data-zone="songs"]')
    expect(songs).to_have_attribute("data-layout", "list")
    expect(songs.locator("[data-item] [data-handle]")).to_have_count(8)
    expect(ann.tile("t1")).to_contain_text("Miles Davis")  # the detail line
    handle = ann.page.locator(HANDLE.format("t1"))
    expect(handle).to_have_attribute("aria-label", re.compile(r"^Move Blue in Green"))
    # Only the handle stops the browser from panning: a finger on a row scrolls the list.
    assert ann.page.eval_on_selector('[data-item="t1"]', "e => getComputedStyle(e).touchAction") == "auto"
    assert handle.evaluate("e => getComputedStyle(e).touchAction") == "none"
    start = ann.order("songs")
    # A press on the row, off the handle, and a drag across its text: no lift, text selected.
    ann.settle()
    label = ann.page.locator('[data-item="t1"] .tile-label').bounding_box()
    ann.page.mouse.move(label["x"] + 2, label["y"] + label["height"] / 2)
    ann.page.mouse.down()
    ann.page.mouse.move(label["x"] + label["width"] - 2, label["y"] + label["height"] / 2 + 60, steps=8)
    expect(ann.page.locator(".ghost")).to_have_count(0)
    ann.page.mouse.up()
    assert ann.page.evaluate("getSelection().toString()").strip() != ""
    # A mouse drag sends its messages as the pointer moves: none went out, so there is nothing
    # for the server to answer (or Bo to see) later.
    sent = ann.page.evaluate("window.__frames.sent.map((m) => m.type)")
    assert sent == ["hello"], f"the press off the handle sent {sent}"
    expect(bo.tile("t1")).not_to_have_attribute("data-held-by", re.compile(".*"))
    assert ann.order("songs") == start and server.board("pl")["seq"] == 0
    # By the handle (inside that selection: the press must not drag the selected text instead):
    # lifted (1.03 scale, a shadow), locked to the list's column however far sideways the
    # pointer goes, and dropped over Teardrop. The selection goes.
    assert ann.page.evaluate("getSelection().containsNode(document.querySelector('[data-item=t1] [data-handle]'), true)")
    row = ann.tile("t1").bounding_box()
    hx, hy = ann.center(HANDLE.format("t1"))
    ann.page.mouse.move(hx, hy)
    ann.page.mouse.down()
    ann.page.mouse.move(hx + 40, hy + 10, steps=3)
    ghost = ann.page.locator(".ghost")
    expect(ghost).to_have_count(1)
    assert ann.page.evaluate("getSelection().toString()") == ""
    assert "matrix(1.03" in ghost.evaluate("e => getComputedStyle(e).transform")
    assert ghost.evaluate("e => getComputedStyle(e).boxShadow") != "none"
    expect(bo.tile("t1")).to_have_attribute("data-held-by", ann.page.evaluate("window.shuffleboard.me"))
    tx, ty = ann.center('[data-item="t4"]')
    for dx in (300, -400, 250):  # far out of the list, both ways
        ann.page.mouse.move(hx + dx, ty, steps=6)
        g = ghost.bounding_box()
        # The ghost is scaled about its centre: its centre stays on the row's centre line.
        assert abs((g["x"] + g["width"] / 2) - (row["x"] + row["width"] / 2)) < 1.5, (g, row)
    ann.page.wait_for_function(
        "() => [...document.querySelectorAll('[data-zone=songs] [data-item]')].slice(0, 4).map(e => e.dataset.item).join() === 't2,t3,t4,t1'",
        timeout=3000)
    ann.page.mouse.up()
    expect(ghost).to_have_count(0)
    want = wait_same_as_server(server, "pl", ann, bo, zones=("songs",))
    assert want["songs"] == ["t2", "t3", "t4", "t1", "t5", "t6", "t7", "t8"]
    # From the keyboard: the handle is the tab stop; up/down walk the list.
    bo.page.locator(HANDLE.format("t8")).focus()
    bo.page.keyboard.press("Space")
    expect(bo.page.locator("#live")).to_contain_text("Picked up Pyramid Song")
    bo.page.keyboard.press("ArrowUp")
    bo.page.keyboard.press("ArrowUp")
    bo.page.keyboard.press("ArrowLeft")  # a list has nothing beside it: stays
    expect(bo.page.locator("#live")).to_contain_text("Over Windowlicker")
    bo.page.keyboard.press("Enter")
    want = wait_same_as_server(server, "pl", ann, bo, zones=("songs",))
    assert want["songs"] == ["t2", "t3", "t4", "t1", "t5", "t8", "t6", "t7"]
    expect(bo.page.locator(HANDLE.format("t8"))).to_be_focused()


def test_kanban_cards_move_within_and_between_titled_columns(clients, server):
    server.create("kanban", "k1")
    ann, bo = clients("Ann", board="k1"), clients("Bo", board="k1")
    titles = ann.page.eval_on_selector_all(".zone-title", "els => els.map(e => e.textContent)")
    assert titles == ["To do", "Doing", "Done"]
    for z in KANBAN:
        expect(ann.page.locator(f'[data-zone="{z}"]')).to_have_attribute("data-layout", "list")
    # Three columns side by side.
    boxes = [ann.page.locator(f'[data-zone="{z}"]').bounding_box() for z in KANBAN]
    assert boxes[0]["x"] < boxes[1]["x"] < boxes[2]["x"] and abs(boxes[0]["y"] - boxes[2]["y"]) < 1
    # Doing → Done, dropped below Done's last card: appended.
    ann.drag("t4", '[data-zone="done"]')
    expect(bo.page.locator('[data-zone="done"] [data-item]')).to_have_count(2)
    # To do → Doing, onto a card; and within To do.
    bo.drag("t1", '[data-item="t5"]')
    ann.drag("t3", '[data-item="t2"]')
    want = wait_same_as_server(server, "k1", ann, bo, zones=KANBAN)
    assert want == {"todo": ["t3", "t2"], "doing": ["t1", "t5"], "done": ["t6", "t4"]}
    # The keyboard crosses columns with left/right.
    bo.tile("t2").focus()
    bo.page.keyboard.press("Space")
    bo.page.keyboard.press("ArrowRight")
    bo.page.keyboard.press("ArrowRight")
    expect(bo.page.locator("#live")).to_contain_text("Over Fix the login page, Done position 2 of 2")
    bo.page.keyboard.press("Space")
    want = wait_same_as_server(server, "k1", ann, bo, zones=KANBAN)
    assert want["done"] == ["t6", "t2", "t4"] and want["todo"] == ["t3"]


ANNOUNCED = """() => {
  window.__said = [];
  const el = document.getElementById('live-others');
  new MutationObserver(() => { if (el.textContent) window.__said.push([performance.now(), el.textContent]); })
    .observe(el, {childList: true, characterData: true, subtree: true});
}"""


def changes_in(sentence):
    """How many changes one announcement stands for."""
    counted = re.findall(r"(?:made|painted) (\d+) (?:changes?|tiles)", sentence)
    return sum(int(n) for n in counted) + len([s for s in sentence.split(". ") if s and not re.search(r"(made|painted) \d+", s)])


def test_other_peoples_moves_are_announced_politely_and_throttled(clients, server):
    server.create("kanban", "k2")
    ann, bo = clients("Ann", board="k2"), clients("Bo", board="k2")
    live = ann.page.locator("#live-others")
    expect(live).to_have_attribute("aria-live", "polite")
    ann.page.evaluate(ANNOUNCED)
    bo.drag("t4", '[data-zone="done"]')
    expect(live).to_have_text("Bo moved Fix the login page to the end of Done.")
    assert bo.page.locator("#live-others").text_content() == ""  # one's own moves are not "others'"
    # Three more moves in a row: however they fall into windows, every change is told, and two
    # announcements are never closer than the throttle's interval.
    bo.drag("t1", '[data-item="t2"]')
    bo.drag("t5", '[data-item="t6"]')
    bo.drag("t3", '[data-zone="doing"]')
    wait_same_as_server(server, "k2", ann, bo, zones=KANBAN)
    ann.page.wait_for_function("() => window.__said.length >= 2", timeout=5000)
    ann.page.wait_for_function(
        "() => !!window.shuffleboard && window.shuffleboard.announcer.groups.size === 0", timeout=5000)
    said = ann.page.evaluate("window.__said")
    assert sum(changes_in(text) for _, text in said) == 4, said
    gaps = [b[0] - a[0] for a, b in zip(said, said[1:])]
    assert all(g >= 1900 for g in gaps), said


def test_a_board_made_from_the_start_page_opens_and_is_listed(contexts, server):
    ctx = contexts(viewport={"width": 760, "height": 900})
    try:
        ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
        page = ctx.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#templates [data-template]")).to_have_count(5)
        page.fill("#name", "Cy")
        page.fill("#new-title", "Team songs")
        page.check('[data-template="playlist"]')
        page.click("#new-form button[type=submit]")
        expect(page).to_have_url(f"{server.url}/?board=team-songs")
        expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
        expect(page.locator("#board-title")).to_have_text("Team songs")
        expect(page.locator('[data-zone="songs"]')).to_have_attribute("data-layout", "list")
        expect(page.locator("#users")).to_contain_text("Cy (you)")
        snap = server.board("team-songs")
        assert snap["board"]["title"] == "Team songs" and snap["board"]["zones"][0]["handle"] is True
        # Copy link: the board's address, without the name.
        page.click("#copy-link")
        expect(page.locator("#copy-link")).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == f"{server.url}/?board=team-songs"
        # The same name again: a board of its own, not the first one. (The page's first try, at
        # the id the title makes, gets 409 Conflict, which the browser logs.)
        contexts.allow("the server responded with a status of 409 (Conflict)")
        page.goto(server.url + "/")
        page.fill("#new-title", "Team songs")
        page.check('[data-template="paint"]')
        page.click("#new-form button[type=submit]")
        expect(page).to_have_url(f"{server.url}/?board=team-songs-2&mode=paint")
        expect(page.locator("#app")).to_have_attribute("data-mode", "paint")
        expect(page.locator('[data-zone="cells"] [data-item]')).to_have_count(64)
        # Its link needs no mode: the board itself says paint, so whoever opens it paints too.
        page.click("#copy-link")
        expect(page.locator("#copy-link")).to_have_text("Copied")
        assert page.evaluate("navigator.clipboard.readText()") == f"{server.url}/?board=team-songs-2"
        # The list, a page at a time.
        for i in range(25):
            server.create("colors", f"z{i:02d}")
        other = ctx.new_page()
        other.goto(server.url + "/")
        items = other.locator("#board-list [data-board]")
        expect(items).to_have_count(20)
        expect(other.locator("#board-list")).to_contain_text("Team songs (team-songs)")
        other.click("#more-boards")
        expect(items).to_have_count(27)
        expect(other.locator("#more-boards")).to_be_hidden()
    finally:
        ctx.close()


# ---- Screenshots: every template with two people on it, one of them mid-drag.

SHOTS = [
    # (template, what Ann lifts, where she hovers, mode)
    ("colors", "t2", '[data-item="t9"]', None),
    ("strips", "t2", '[data-zone="bottom"]', None),
    ("paint", None, None, "paint"),
    ("playlist", "t2", '[data-item="t5"]', None),
    ("kanban", "t1", '[data-zone="doing"]', None),
]


def test_screenshots_of_every_template(clients, server, contexts):
    """Saves test-output/template-<name>.png (two windows) and test-output/templates.png (all five,
    Bo's window: Ann's hand mid-drag); SHUFFLEBOARD_UPDATE_SCREENSHOT=1 copies the composite to
    docs/templates.png."""
    singles = []
    for template, item, target, mode in SHOTS:
        server.create(template, f"shot-{template}", title=template.capitalize())
        ann = clients("Ann", board=f"shot-{template}")
        bo = clients("Bo", board=f"shot-{template}")
        if template == "paint":
            ann.mode(mode)
            for cells in (["t10", "t11", "t12", "t13", "t14"], ["t19", "t27", "t35", "t43"], ["t22", "t30", "t38", "t46"]):
                x, y = ann.center(f'[data-item="{cells[0]}"]')
                ann.page.mouse.move(x, y)
                ann.page.mouse.down()
                for c in cells[1:]:
                    ann.hover_to(f'[data-item="{c}"]')
                ann.page.mouse.up()
            expect(bo.page.locator('[data-on="true"]')).to_have_count(13)
        else:
            if template == "playlist":
                x, y = ann.center(HANDLE.format(item))
                ann.page.mouse.move(x, y)
                ann.page.mouse.down()
                ann.page.mouse.move(x, y + 10, steps=2)
                expect(ann.page.locator(".ghost")).to_have_count(1)
            else:
                ann.lift(item)
            ann.hover_to(target)
            expect(bo.page.locator(".hand")).to_have_count(1)
            bo.page.wait_for_function(
                "() => document.getAnimations().filter(a => a.playState === 'running').length === 0", timeout=3000)
        shots = [ann.page.screenshot(), bo.page.screenshot()]
        compose(contexts, [shots], OUTPUT / f"template-{template}.png", scale=1)
        singles.append(shots[1])
        if item:
            ann.page.mouse.up()
        ann.close()
        bo.close()
    path = OUTPUT / "templates.png"
    compose(contexts, [singles[:3], singles[3:]], path, scale=0.5)
    if os.environ.get("SHUFFLEBOARD_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(path, ROOT / "docs" / "templates.png")


def compose(contexts, rows, path, scale):
    """Lays PNG screenshots out in rows (scaled) on a dark background and saves the picture."""
    width, height, gap = 760 * scale, 720 * scale, 12
    cols = max(len(r) for r in rows)
    ctx = contexts(viewport={"width": int(cols * width + (cols + 1) * gap), "height": int(len(rows) * height + (len(rows) + 1) * gap)})
    try:
        page = ctx.new_page()
        html = "".join(
            "<div class=r>" + "".join(f'<img src="data:image/png;base64,{base64.b64encode(s).decode()}">' for s in r) + "</div>"
            for r in rows)
        page.set_content(
            f"<style>body{{margin:0;padding:{gap}px;background:#2b2b30;display:flex;flex-direction:column;gap:{gap}px}}"
            f".r{{display:flex;gap:{gap}px}}img{{width:{width}px;height:{height}px;border-radius:8px;box-shadow:0 4px 16px #0008}}</style>" + html)
        page.wait_for_function("() => [...document.images].every(i => i.complete && i.naturalWidth > 0)", timeout=5000)
        OUTPUT.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(path))
    finally:
        ctx.close()


def test_on_a_phone_a_swipe_on_a_playlist_row_scrolls_and_a_finger_on_the_handle_drags(contexts, server):
    server.create("playlist", "pp")
    ctx = contexts(viewport={"width": 390, "height": 480}, has_touch=True, is_mobile=True)
    try:
        page = ctx.new_page()
        page.add_init_script(RECORD_SOCKETS)
        page.goto(f"{server.url}/?board=pp&name=Tess")
        expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
        touch = Touch(ctx, page)

        # A swipe up on a row, off its handle: the page scrolls, nothing is lifted.
        assert page.evaluate("scrollY") == 0
        x, y = center(page, '[data-item="t3"] .tile-label')
        touch("touchStart", x, y)
        for i in range(1, 11):
            touch("touchMove", x, y - 15 * i)
        touch("touchEnd")
        expect(page.locator(".ghost")).to_have_count(0)
        page.wait_for_function("() => scrollY > 0", timeout=3000)
        # Nothing went to the server for the swipe (so its seq below is not read too early).
        assert page.evaluate("window.__frames.sent.map((m) => m.type)") == ["hello"]
        assert server.board("pp")["seq"] == 0
        # Once the fling is over, back to the top.
        page.wait_for_function(
            "() => { const y = scrollY, same = window.__y === y; window.__y = y; return same; }", polling=200, timeout=5000)
        page.evaluate("scrollTo(0, 0)")
        page.wait_for_function("() => scrollY === 0", timeout=3000)
        # A finger on t1's handle, moved down over t3: t1 is lifted at once and moved.
        hx, hy = center(page, HANDLE.format("t1"))
        _, ty = center(page, '[data-item="t3"]')
        touch("touchStart", hx, hy)
        for i in range(1, 11):
            touch("touchMove", hx, hy + (ty - hy) * i / 10)
        expect(page.locator(".ghost")).to_have_count(1)
        touch("touchEnd")
        expect(page.locator(".ghost")).to_have_count(0)
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-zone=songs] [data-item]')].slice(0, 3).map(e => e.dataset.item).join() === 't2,t3,t1'",
            timeout=3000)
        expect(page.locator("#app")).to_have_attribute("data-seq", "1")
        assert server.zone("pp", "songs")[:3] == ["t2", "t3", "t1"]
    finally:
        ctx.close()
