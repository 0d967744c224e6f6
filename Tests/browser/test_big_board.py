"""Issue 36, boards of many cards, in Chromium: a board of 3,000 cards (three columns of 1,000)
renders only the cards on screen (virtual.js); a column scrolls on its own and renders the cards
it scrolls to; a card dragged between columns commits and the other page shows it; a card is
moved from the keyboard; the focus walks down a column past the cards first rendered, and
comes back to a card far down it when its card panel closes.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
import pytest
from playwright.sync_api import expect

from bigboard import write_big_board

PER_COLUMN = 1000


@pytest.fixture
def big(make_server, server_binary, tmp_path):
    zones = write_big_board(server_binary, tmp_path / "data", "big", 3, PER_COLUMN)
    return make_server(data=str(tmp_path / "data")), zones


@pytest.fixture
def server(big):
    # The `clients` fixture joins this server: the one holding the big board.
    return big[0]


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
