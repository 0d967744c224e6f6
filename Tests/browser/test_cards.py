"""Issue 32 in two Chromium pages: the card panel (a dialog named after the card) changes the
description, tags, assignees, due date and checklist, and the other page's card face follows;
Markdown renders as inert DOM (no raw HTML, no script, no `javascript:` link); a description
someone else changes while one writes keeps the typed text and says so.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
from playwright.sync_api import expect

from harness import OUTPUT

HOSTILE = """# Release notes

Some *emphasis*, **bold** and `code`.

- [the site](https://example.com/x)
- [bad](javascript:window.pwned=2)
- <img src=x onerror="window.pwned=1">

<b>raw</b> <script>window.pwned=3</script>

> quoted"""


def first_card(server, board):
    return server.board(board)["board"]["zones"][0]["items"][0]


def open_panel(client, item):
    client.tile(item).click()
    dialog = client.page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    return dialog


def test_the_card_panel_fills_a_card_and_the_other_page_sees_it(clients, server):
    server.create("kanban", "k1")
    ann, bo = clients("Ann", board="k1"), clients("Bo", board="k1")
    item = first_card(server, "k1")
    label = server.board("k1")["board"]["items"][0]["label"]
    panel = open_panel(ann, item)
    expect(panel).to_have_attribute("aria-label", label)

    # Tags: made, then picked; Bo's card face gets the chip.
    panel.get_by_label("New tag name").fill("Bug")
    panel.get_by_role("button", name="Create tag").click()
    panel.get_by_role("button", name="Bug").click()
    expect(panel.get_by_role("button", name="Bug")).to_have_attribute("aria-pressed", "true")
    expect(bo.tile(item).locator(".chip")).to_have_text("Bug")

    # Assign me: Bo sees Ann's initials.
    panel.get_by_role("button", name="Assign me").click()
    expect(bo.tile(item).locator(".initials")).to_have_text("A")

    # A due date in the past: overdue on Bo's face.
    panel.get_by_label("Due date").fill("2020-01-02")
    expect(bo.tile(item).locator(".due")).to_have_attribute("data-due", "overdue")

    # The checklist: two entries, one ticked: 1/2 on Bo's face.
    for text in ("Write the tests", "Ship it"):
        panel.get_by_label("New checklist item").fill(text)
        panel.get_by_label("New checklist item").press("Enter")
    expect(bo.tile(item).locator(".progress")).to_contain_text("0/2")
    panel.get_by_label("Done: Write the tests").check()
    expect(bo.tile(item).locator(".progress")).to_contain_text("1/2")
    panel.get_by_role("button", name="Remove Ship it").click()
    expect(bo.tile(item).locator(".progress")).to_contain_text("1/1")

    # The description: Markdown rendered as inert DOM nodes on both pages.
    panel.get_by_role("button", name="Edit description").click()
    panel.get_by_label("Description (Markdown)").fill(HOSTILE)
    panel.get_by_role("button", name="Save").click()
    expect(bo.tile(item).locator(".has-description")).to_have_count(1)
    bo_panel = open_panel(bo, item)
    for p in (panel, bo_panel):
        rendered = p.locator("[data-description]")
        expect(rendered.locator("h3")).to_have_text("Release notes")
        expect(rendered.locator("em")).to_have_text("emphasis")
        expect(rendered.locator("code")).to_have_text("code")
        expect(rendered.locator("blockquote")).to_contain_text("quoted")
        expect(rendered.locator("img, script, b")).to_have_count(0)
        expect(rendered).to_contain_text('<img src=x onerror="window.pwned=1">')
        expect(rendered).to_contain_text("<b>raw</b>")
        link = rendered.locator("a")
        expect(link).to_have_count(1)
        expect(link).to_have_attribute("href", "https://example.com/x")
        expect(link).to_have_attribute("rel", "noopener noreferrer")
    for c in (ann, bo):
        assert c.page.evaluate("window.pwned") is None
    # Bo's panel shows Ann's tag, her assignment and the checklist, live.
    expect(bo_panel.get_by_role("button", name="Bug")).to_have_attribute("aria-pressed", "true")
    expect(bo_panel.locator('[data-member]', has_text="Ann")).to_have_attribute("aria-pressed", "true")
    # The card's own history, in words.
    expect(bo_panel.locator(".history-list")).to_contain_text("Ann tagged")
    expect(bo_panel.locator(".history-list")).to_contain_text("Ann assigned Ann to")
    ann.page.screenshot(path=str(OUTPUT / "card-panel.png"))
    # A tag renamed and recolored from the panel: Bo's chip follows.
    panel.locator("summary").click()
    panel.get_by_label("Name of tag Bug").fill("Defect")
    panel.get_by_label("Name of tag Bug").press("Enter")
    expect(bo.tile(item).locator(".chip")).to_have_text("Defect")
    panel.get_by_label("Color of tag Defect").select_option("#1e88e5")
    expect(bo.tile(item).locator(".chip")).to_have_attribute("style", "--chip-color: #1e88e5;")

    # The server has all of it, and History says it in words.
    card = next(i for i in server.board("k1")["board"]["items"] if i["id"] == item)
    assert card["tags"] == ["g1"] and card["due"] == "2020-01-02" and card["description"] == HOSTILE
    assert server.board("k1")["board"]["tags"] == [{"id": "g1", "name": "Defect", "color": "#1e88e5"}]
    assert [c["text"] for c in card["checklist"]] == ["Write the tests"]
    assert card["assignees"][0]["name"] == "Ann"


def test_enter_on_a_focused_card_opens_its_panel_and_escape_gives_the_focus_back(clients, server):
    server.create("kanban", "k6")
    ann, bo = clients("Ann", board="k6"), clients("Bo", board="k6")
    item = first_card(server, "k6")
    label = server.board("k6")["board"]["items"][0]["label"]
    ann.tile(item).focus()
    ann.page.keyboard.press("Enter")
    panel = ann.page.get_by_role("dialog")
    expect(panel).to_have_attribute("aria-label", label)
    # The label is editable there, and focused: typed, Enter commits it; Bo's card follows.
    field = panel.get_by_label("Card label")
    expect(field).to_be_focused()
    field.fill("Renamed from the panel")
    field.press("Enter")
    expect(bo.tile(item).locator(".tile-label")).to_have_text("Renamed from the panel")
    ann.page.keyboard.press("Escape")
    expect(ann.page.get_by_role("dialog")).to_have_count(0)
    expect(ann.tile(item)).to_be_focused()
    # No editor in place was opened on the way, and the rename is the only op.
    expect(ann.page.locator(".card-editor")).to_have_count(0)
    assert [o["type"] for o in server.get_json("/api/boards/k6/ops")["ops"]] == ["edit"]


def test_a_description_changed_meanwhile_keeps_the_typed_text(clients, server):
    server.create("kanban", "k2")
    ann, bo = clients("Ann", board="k2"), clients("Bo", board="k2")
    item = first_card(server, "k2")
    ann_panel, bo_panel = open_panel(ann, item), open_panel(bo, item)
    ann_panel.get_by_role("button", name="Edit description").click()
    ann_panel.get_by_label("Description (Markdown)").fill("Ann's careful text")
    bo_panel.get_by_role("button", name="Edit description").click()
    bo_panel.get_by_label("Description (Markdown)").fill("Bo was quicker")
    bo_panel.get_by_role("button", name="Save").click()
    # Ann is told, her text stays; Bo's shows above it.
    expect(ann_panel.locator(".notice")).to_contain_text("Your text is kept")
    expect(ann_panel.get_by_label("Description (Markdown)")).to_have_value("Ann's careful text")
    expect(ann_panel.locator("[data-description]")).to_contain_text("Bo was quicker")
    # Saving after being told replaces Bo's (her base has his), on both pages.
    ann_panel.get_by_role("button", name="Save").click()
    expect(bo_panel.locator("[data-description]")).to_contain_text("Ann's careful text")
    card = next(i for i in server.board("k2")["board"]["items"] if i["id"] == item)
    assert card["description"] == "Ann's careful text"


def test_the_filter_bar_hides_cards_that_do_not_match_and_a_link_keeps_the_filter(clients, server):
    server.create("kanban", "k3")
    ann = clients("Ann", board="k3")
    items = server.board("k3")["board"]["items"]
    first, second = items[0]["id"], items[1]["id"]
    panel = open_panel(ann, first)
    panel.get_by_label("New checklist item").fill("Needle in the checklist")
    panel.get_by_label("New checklist item").press("Enter")
    panel.get_by_label("Due date").fill("2020-01-02")
    panel.get_by_role("button", name="Close").click()
    expect(ann.page.get_by_role("dialog")).to_have_count(0)

    # Text matches a checklist entry: only that card shows, with a count, kept in the URL. (The
    # toolbar's Filter opens the filter bar.)
    ann.page.get_by_role("button", name="Filter").click()
    ann.page.get_by_label("Filter cards by text").fill("needle")
    expect(ann.tile(first)).to_be_visible()
    expect(ann.tile(second)).to_be_hidden()
    expect(ann.page.locator("#filter-count")).to_have_text(f"1 of {len(items)} cards")
    assert "q=needle" in ann.page.url
    ann.page.get_by_label("Filter cards by text").fill("")
    expect(ann.tile(second)).to_be_visible()
    # Overdue only; then no due date: the other way round.
    ann.page.get_by_label("Filter by due date").select_option("overdue")
    expect(ann.tile(second)).to_be_hidden()
    expect(ann.tile(first)).to_be_visible()
    ann.page.get_by_label("Filter by due date").select_option("none")
    expect(ann.tile(first)).to_be_hidden()
    expect(ann.tile(second)).to_be_visible()
    # A link with the filter opens filtered.
    ann.page.goto(ann.page.url)
    ann.wait_connected()
    expect(ann.tile(first)).to_be_hidden()
    expect(ann.page.get_by_label("Filter by due date")).to_have_value("none")


def test_undo_takes_back_a_tag_and_a_tick(clients, server):
    server.create("kanban", "k4")
    ann, bo = clients("Ann", board="k4"), clients("Bo", board="k4")
    item = first_card(server, "k4")
    panel = open_panel(ann, item)
    panel.get_by_label("New tag name").fill("Bug")
    panel.get_by_role("button", name="Create tag").click()
    panel.get_by_role("button", name="Bug").click()
    expect(bo.tile(item).locator(".chip")).to_have_text("Bug")
    panel.get_by_label("New checklist item").fill("One")
    panel.get_by_label("New checklist item").press("Enter")
    panel.get_by_label("Done: One").check()
    expect(bo.tile(item).locator(".progress")).to_contain_text("1/1")
    panel.get_by_role("button", name="Close").click()
    # Undo, newest first: the tick, then the entry, then the tag on the card.
    ann.page.locator("#undo").click()
    expect(bo.tile(item).locator(".progress")).to_contain_text("0/1")
    ann.page.locator("#undo").click()
    expect(bo.tile(item).locator(".progress")).to_have_count(0)
    ann.page.locator("#undo").click()
    expect(bo.tile(item).locator(".chip")).to_have_count(0)
    ann.page.locator("#redo").click()
    expect(bo.tile(item).locator(".chip")).to_have_text("Bug")


def test_undo_of_a_remove_brings_the_cards_content_back_on_both_pages(clients, server):
    server.create("kanban", "k5")
    ann, bo = clients("Ann", board="k5"), clients("Bo", board="k5")
    item = first_card(server, "k5")
    label = server.board("k5")["board"]["items"][0]["label"]
    panel = open_panel(ann, item)
    panel.get_by_role("button", name="Edit description").click()
    panel.get_by_label("Description (Markdown)").fill("Typed *with care*")
    panel.get_by_role("button", name="Save").click()
    for text in ("Write the tests", "Ship it"):
        panel.get_by_label("New checklist item").fill(text)
        panel.get_by_label("New checklist item").press("Enter")
    panel.get_by_label("Done: Write the tests").check()
    expect(bo.tile(item).locator(".progress")).to_contain_text("1/2")
    panel.get_by_role("button", name="Close").click()
    # Removed (Delete on the focused card), then Undo from the toast: the card comes back whole.
    ann.tile(item).focus()
    ann.page.keyboard.press("Delete")
    expect(bo.tile(item)).to_have_count(0)
    ann.page.locator("#toast .toast-action").click()
    for c in (ann, bo):
        back = c.page.locator("[data-item]", has=c.page.locator(".tile-label", has_text=label))
        expect(back).to_have_count(1)
        expect(back.locator(".progress")).to_contain_text("1/2")
        expect(back.locator(".has-description")).to_have_count(1)
    new_id = bo.page.locator("[data-item]", has=bo.page.locator(".tile-label", has_text=label)).get_attribute("data-item")
    assert new_id != item
    bo_panel = open_panel(bo, new_id)
    expect(bo_panel.locator("[data-description] em")).to_have_text("with care")
    expect(bo_panel.get_by_label("Done: Write the tests")).to_be_checked()
    expect(bo_panel.get_by_label("Done: Ship it")).not_to_be_checked()
    card = next(i for i in server.board("k5")["board"]["items"] if i["id"] == new_id)
    assert card["description"] == "Typed *with care*"
    assert [(c["text"], c["done"]) for c in card["checklist"]] == [("Write the tests", True), ("Ship it", False)]
    # The tick made before the remove is undone on the card as it came back.
    ann.page.locator("#undo").click()
    expect(bo.tile(new_id).locator(".progress")).to_contain_text("0/2")



def test_undo_of_deleting_a_tag_puts_it_back_on_its_cards_on_both_pages(clients, server):
    server.create("kanban", "k7")
    ann, bo = clients("Ann", board="k7"), clients("Bo", board="k7")
    items = [i["id"] for i in server.board("k7")["board"]["items"]][:2]
    for n, item in enumerate(items):
        panel = open_panel(ann, item)
        if n == 0:
            panel.get_by_label("New tag name").fill("Bug")
            panel.get_by_role("button", name="Create tag").click()
        panel.get_by_role("button", name="Bug").click()
        expect(bo.tile(item).locator(".chip")).to_have_text("Bug")
        panel.get_by_role("button", name="Close").click()
    # Deleted from the panel: it leaves both cards on both pages.
    panel = open_panel(ann, items[0])
    panel.locator("summary").click()
    panel.locator(".tag-delete").click()
    for c in (ann, bo):
        for item in items:
            expect(c.tile(item).locator(".chip")).to_have_count(0)
    panel.get_by_role("button", name="Close").click()
    # Undo: the tag is made again, on the same two cards, in one op.
    ann.page.locator("#undo").click()
    for c in (ann, bo):
        for item in items:
            expect(c.tile(item).locator(".chip")).to_have_text("Bug")
    board = server.board("k7")["board"]
    [tag] = board["tags"]
    assert tag["name"] == "Bug" and tag["id"] != "g1"
    assert [i["id"] for i in board["items"] if tag["id"] in i.get("tags", [])] == items
    ops = server.get_json("/api/boards/k7/ops")["ops"]
    assert ops[-1]["type"] == "addTag" and ops[-1]["items"] == items
    # Redo deletes it again.
    ann.page.locator("#redo").click()
    expect(bo.tile(items[0]).locator(".chip")).to_have_count(0)
