"""Issue 36, boards of many cards, in Chromium: a board of 3,000 cards (three columns of 1,000)
renders only the cards on screen (virtual.js); a column scrolls on its own and renders the cards
it scrolls to; a card dragged between columns commits and the other page shows it; a card is
moved from the keyboard; the focus walks down a column past the cards first rendered, and
comes back to a card far down it when its card panel closes. Grid and row zones are windowed
too: a grid of 1,200 cards keeps a bounded number of tiles, a card dropped into its middle lands
at the index of the tile it was dropped on (on both pages), the arrows walk it by rows, and a
Shift+X range runs over cards not rendered.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
import re

import pytest
from playwright.sync_api import expect

from bigboard import write_big_board

PER_COLUMN = 1000


@pytest.fixture
def big(make_server, server_binary, tmp_path):
    zones = write_big_board(server_binary, tmp_path / "data", "big", 3, PER_COLUMN)
    return make_server(data=str(tmp_path / "data")), zones


@pytest.fixture
def server(request):
    # The `clients` fixture joins this server: the one holding the test's board (`shapes` or `big`).
    return request.getfixturevalue("shapes" if "shapes" in request.fixturenames else "big")[0]


def rendered(client):
    return client.page.locator("#zones [data-item]").count()


def zone_of(server, item):
    return next(z["id"] for z in server.board("big")["board"]["zones"] if item in z["items"])


def test_a_big_board_renders_only_what_is_on_screen_and_a_column_scrolls_to_its_cards(clients, big):
    server, zones = big
    ann = clients("Ann", board="big")
    expect(ann.tile("c1")).to_have_count(1)
    # Three columns of 1,000 cards: a few dozen tiles each, not thousands.
    assert 0 < rendered(ann) < 300, rendered(ann)
    deep = zones["col1"][600]
    expect(ann.tile(deep)).to_have_count(0)
    # The column scrolls on its own (the page does not), and renders the cards it reaches.
    column = ann.page.locator('[data-zone="col1"]')
    assert column.evaluate("e => e.scrollHeight > e.clientHeight * 10")
    column.evaluate("e => { e.scrollTop = e.scrollHeight * 0.6; }")
    expect(ann.tile(deep)).to_have_count(1)
    expect(ann.tile("c1")).to_have_count(0)
    assert rendered(ann) < 300, rendered(ann)
    # Its heading stays in sight above it.
    head = ann.page.locator('[data-zone-wrap="col1"] .zone-title')
    expect(head).to_be_in_viewport()


def test_a_card_dragged_between_big_columns_commits_and_shows_on_the_other_page(clients, big):
    server, zones = big
    ann, bo = clients("Ann", board="big"), clients("Bo", board="big")
    card, anchor = zones["col1"][2], zones["col2"][3]
    expect(ann.tile(card)).to_have_count(1)
    seq = ann.seq()
    ann.drag(card, f'[data-item="{anchor}"]')
    for page in (ann, bo):
        expect(page.page.locator(f'[data-zone="col2"] [data-item="{card}"]')).to_have_count(1)
        expect(page.page.locator("#app")).to_have_attribute("data-seq", str(seq + 1))
    assert zone_of(server, card) == "col2"
    ops = server.get_json("/api/boards/big/ops?since=0")["ops"]
    assert len(ops) == 1 and ops[0]["type"] == "move" and ops[0]["item"] == card, ops


def test_a_card_far_down_a_column_is_focused_and_moved_from_the_keyboard(clients, big):
    server, zones = big
    ann = clients("Ann", board="big")
    first = zones["col1"][0]
    ann.tile(first).focus()
    # End: the focus goes to the column's last card, which was not rendered before.
    last = zones["col1"][-1]
    expect(ann.tile(last)).to_have_count(0)
    ann.page.keyboard.press("End")
    expect(ann.tile(last)).to_be_focused()
    # Enter opens its card panel; closing it gives the focus back to the card.
    ann.page.keyboard.press("Enter")
    dialog = ann.page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    ann.page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(ann.tile(last)).to_be_focused()
    # Up from there walks the column.
    ann.page.keyboard.press("ArrowUp")
    expect(ann.tile(zones["col1"][-2])).to_be_focused()
    # Space lifts it, Right aims at the next column, Space drops: one move, committed.
    card = zones["col1"][-2]
    seq = ann.seq()
    ann.page.keyboard.press(" ")
    ann.page.keyboard.press("ArrowRight")
    ann.page.keyboard.press(" ")
    expect(ann.page.locator("#app")).to_have_attribute("data-seq", str(seq + 1))
    assert zone_of(server, card) == "col2"
    expect(ann.page.locator(f'[data-zone="col2"] [data-item="{card}"]')).to_have_count(1)


# A board of a short row (col1), a grid of 1,200 cards in 6 columns (col2) and a row of 400
# (col3): grid and row zones are windowed too.
GRID = 1200


@pytest.fixture
def shapes(make_server, server_binary, tmp_path):
    zones = write_big_board(server_binary, tmp_path / "shapes", "shapes", 3, [5, GRID, 400], title="Shapes",
                            layouts=[{"layout": "row"}, {"layout": "grid", "columns": 6}, {"layout": "row"}])
    return make_server(data=str(tmp_path / "shapes")), zones


def in_zone(client, zone):
    return client.page.locator(f'[data-zone="{zone}"] [data-item]').count()


def before(client, item):
    """The item rendered just before `item` in its zone (a spacer says so: None)."""
    return client.page.locator(f'[data-item="{item}"]').evaluate("e => e.previousElementSibling?.dataset.item ?? null")


def test_a_big_grid_keeps_few_tiles_and_a_drop_into_it_lands_at_its_index_on_both_pages(clients, shapes):
    server, zones = shapes
    ann, bo = clients("Ann", board="shapes"), clients("Bo", board="shapes")
    grid = ann.page.locator('[data-zone="col2"]')
    expect(grid).to_have_class(re.compile(r"\bis-windowed\b"))
    expect(ann.tile(zones["col2"][0])).to_have_count(1)
    assert 0 < in_zone(ann, "col2") < 300, in_zone(ann, "col2")
    # The row of 400 is windowed across: a few dozen tiles, and the ones it scrolls to.
    assert 0 < in_zone(ann, "col3") < 120, in_zone(ann, "col3")
    ann.page.locator('[data-zone="col3"]').evaluate("e => { e.scrollLeft = e.scrollWidth / 2; }")
    expect(ann.tile(zones["col3"][200])).to_have_count(1)
    assert in_zone(ann, "col3") < 120, in_zone(ann, "col3")
    # The grid scrolls on its own to its middle (line 100 of 200): those cards are rendered, in
    # their columns, and the first are not.
    grid.evaluate("e => { e.scrollTop = e.scrollHeight / 2; }")
    target = zones["col2"][606]
    expect(ann.tile(target)).to_have_count(1)
    expect(ann.tile(zones["col2"][0])).to_have_count(0)
    assert in_zone(ann, "col2") < 300, in_zone(ann, "col2")
    left = lambda i: ann.tile(zones["col2"][i]).bounding_box()["x"]  # noqa: E731
    assert abs(left(606) - left(600)) < 1 and left(607) > left(606), "a card keeps its grid column"
    # A card of the short row dropped on it (move mode: a row is on the board) takes its index.
    card = zones["col1"][1]
    seq = ann.seq()
    ann.lift(card)
    ann.hover_to(f'[data-item="{target}"]')
    ann.hover_to(f'[data-item="{target}"]')  # wherever an autoscroll on the way left it
    ann.page.mouse.up()
    expect(ann.page.locator(".ghost")).to_have_count(0)
    expect(ann.page.locator("#app")).to_have_attribute("data-seq", str(seq + 1))
    items = server.zone("shapes", "col2")
    assert items.index(card) == 606 and items[607] == target, items[600:610]
    assert before(ann, target) == card
    # Bo's grid is at its top: scrolled to the same place, it shows the card there too.
    expect(bo.page.locator("#app")).to_have_attribute("data-seq", str(seq + 1))
    expect(bo.tile(card)).to_have_count(0)
    bo.page.locator('[data-zone="col2"]').evaluate("e => { e.scrollTop = e.scrollHeight / 2; }")
    expect(bo.page.locator(f'[data-zone="col2"] [data-item="{card}"]')).to_have_count(1)
    assert before(bo, target) == card


def test_the_focus_walks_a_big_grid_by_rows_and_to_its_end(clients, shapes):
    server, zones = shapes
    ann = clients("Ann", board="shapes")
    first = zones["col2"][0]
    ann.tile(first).focus()
    ann.page.keyboard.press("ArrowDown")
    expect(ann.tile(zones["col2"][6])).to_be_focused()
    ann.page.keyboard.press("ArrowRight")
    expect(ann.tile(zones["col2"][7])).to_be_focused()
    # End: the grid's last card, not rendered before; Up from there goes one row up.
    last = zones["col2"][-1]
    expect(ann.tile(last)).to_have_count(0)
    ann.page.keyboard.press("End")
    expect(ann.tile(last)).to_be_focused()
    expect(ann.tile(last)).to_be_in_viewport()
    ann.page.keyboard.press("ArrowUp")
    expect(ann.tile(zones["col2"][-7])).to_be_focused()
    assert in_zone(ann, "col2") < 300, in_zone(ann, "col2")
    # Space lifts it, Left aims before the card before it, Space drops: one move, the focus stays on it.
    moved = zones["col2"][-7]
    seq = ann.seq()
    ann.page.keyboard.press(" ")
    ann.page.keyboard.press("ArrowLeft")
    ann.page.keyboard.press(" ")
    expect(ann.page.locator("#app")).to_have_attribute("data-seq", str(seq + 1))
    expect(ann.tile(moved)).to_be_focused()
    assert server.zone("shapes", "col2").index(moved) == GRID - 8


def test_a_range_selected_in_a_big_grid_runs_over_the_cards_not_rendered(clients, shapes):
    server, zones = shapes
    ann = clients("Ann", board="shapes")
    grid = zones["col2"]
    bar = ann.page.locator("#selection-bar")
    ann.tile(grid[0]).focus()
    ann.page.keyboard.press("x")
    expect(bar.locator(".selection-count")).to_have_text("1 selected")
    # 25 rows down (card 150, past the first window), then Shift+X: the range from the first.
    expect(ann.tile(grid[150])).to_have_count(0)
    for _ in range(25):
        ann.page.keyboard.press("ArrowDown")
    expect(ann.tile(grid[150])).to_be_focused()
    ann.page.keyboard.press("Shift+X")
    expect(bar.locator(".selection-count")).to_have_text("151 selected")
    expect(ann.tile(grid[150])).to_have_attribute("aria-selected", "true")
    expect(ann.tile(grid[151])).not_to_have_attribute("aria-selected", "true")
    # Back at the top, the first cards (rendered again) are marked too.
    ann.page.keyboard.press("Home")
    expect(ann.tile(grid[0])).to_be_focused()
    for i in (0, 1, 77):
        expect(ann.tile(grid[i])).to_have_attribute("aria-selected", "true")
    assert in_zone(ann, "col2") < 300, in_zone(ann, "col2")
