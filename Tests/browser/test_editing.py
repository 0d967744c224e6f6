"""Issue 19 in two Chromium pages: add, edit and remove cards, add, rename and remove columns,
rename the board — each seen live by the other page, conflict-checked by the server, undoable.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
from playwright.sync_api import expect


def labels(client, zone):
    return client.page.eval_on_selector_all(
        f'[data-zone="{zone}"] [data-item] .tile-label', "els => els.map(e => e.textContent)")


def card(client, label):
    return client.page.locator("[data-item]", has=client.page.locator(".tile-label", has_text=label))


def ops(server, board):
    return [(o["type"], o["op"]) for o in server.get_json(f"/api/boards/{board}/ops")["ops"]]


def test_cards_are_added_edited_and_removed_live_with_undo(clients, server):
    server.create("kanban", "k1")
    ann, bo = clients("Ann", board="k1"), clients("Bo", board="k1")

    # Add: "Add card" under To do, Enter adds; markup in a label stays text on both pages.
    field = ann.page.locator('[data-add-card="todo"] input')
    field.fill("<b>Buy milk</b>")
    field.press("Enter")
    expect(field).to_have_value("")
    for c in (ann, bo):
        expect(c.page.locator('[data-zone="todo"] .tile-label').last).to_have_text("<b>Buy milk</b>")
        expect(c.page.locator('[data-zone="todo"] b')).to_have_count(0)
    new_id = server.board("k1")["board"]["zones"][0]["items"][-1]
    assert new_id == "c1"
    expect(ann.tile(new_id)).to_have_count(1)

    # Edit: a double-click edits the label in place; Enter commits; Bo sees the text change.
    ann.tile(new_id).dblclick()
    ann.page.locator('.card-editor [aria-label="Card label"]').fill("Buy oat milk")
    ann.page.locator('.card-editor [aria-label="Card detail"]').fill("2 litres")
    ann.page.locator('.card-editor [aria-label="Card label"]').press("Enter")
    expect(bo.tile(new_id).locator(".tile-label")).to_have_text("Buy oat milk")
    expect(bo.tile(new_id).locator(".tile-detail")).to_have_text("2 litres")
    expect(ann.tile(new_id)).to_be_focused()
    # A color from the editor's palette: one edit of the color alone.
    ann.page.keyboard.press("Enter")
    ann.page.locator('.card-editor [data-color="#43a047"]').click()
    ann.page.keyboard.press("Escape")
    bo.page.wait_for_function(
        "(id) => document.querySelector(`[data-item=\"${id}\"]`).style.getPropertyValue('--tile-color') === '#43a047'",
        arg=new_id)

    # Bo lifts "Fix the login page" (t4) and holds it; Ann edits it meanwhile (Enter on the
    # focused tile): both commit. Ann's Delete on it is refused with Bo's name.
    bo.lift("t4")
    expect(ann.tile("t4")).to_have_attribute("data-held-by", bo.page.evaluate("window.shuffleboard.me"))
    ann.tile("t4").focus()
    ann.page.keyboard.press("Enter")
    ann.page.locator('.card-editor [aria-label="Card label"]').fill("Fix the sign-in page")
    ann.page.keyboard.press("Enter")
    expect(bo.tile("t4").locator(".tile-label")).to_have_text("Fix the sign-in page")
    ann.tile("t4").focus()
    ann.page.keyboard.press("Delete")
    expect(ann.page.locator("#toast")).to_contain_text("Bo is holding that tile")
    bo.hover_to('[data-zone="done"]')
    bo.page.mouse.up()
    expect(ann.page.locator('[data-zone="done"] [data-item="t4"]')).to_have_count(1)
    expect(ann.tile("t4")).not_to_have_attribute("data-held-by", bo.page.evaluate("window.shuffleboard.me"))

    # Remove: Delete on the focused card; it fades out on Bo's page; the toast offers Undo.
    ann.tile(new_id).focus()
    ann.page.keyboard.press("Delete")
    expect(bo.tile(new_id)).to_have_count(0)
    expect(ann.tile(new_id)).to_have_count(0)
    ann.page.locator("#toast .toast-action").click()
    # Undone: back with its label and place, under a new id, on both pages.
    for c in (ann, bo):
        expect(c.page.locator('[data-zone="todo"] .tile-label').last).to_have_text("Buy oat milk")
    # Redo removes it again; undo brings it back again.
    ann.page.click("#redo")
    for c in (ann, bo):
        expect(card(c, "Buy oat milk")).to_have_count(0)
    ann.page.click("#undo")
    for c in (ann, bo):
        expect(card(c, "Buy oat milk")).to_have_count(1)
    assert labels(bo, "todo") == labels(ann, "todo")
    types = [t for t, _ in ops(server, "k1")]
    assert types == ["add", "edit", "edit", "edit", "move", "remove", "add", "remove", "add"], types
    # The card came back with its label, detail and color.
    back = next(i for i in server.board("k1")["board"]["items"] if i["label"] == "Buy oat milk")
    assert back["detail"] == "2 litres" and back["color"] == "#43a047"


def test_columns_and_the_board_title_are_edited_live(clients, server):
    server.create("kanban", "k2")
    ann, bo = clients("Ann", board="k2"), clients("Bo", board="k2")

    # Bo is typing a card when Ann adds a column: his text and focus survive the new column.
    bo_field = bo.page.locator('[data-add-card="doing"] input')
    bo_field.fill("Half a tho")
    ann.page.click("#add-zone")
    new_zone = bo.page.locator('[data-zone-wrap]').last
    expect(new_zone.locator(".zone-title")).to_have_text("New column")
    zone_id = new_zone.get_attribute("data-zone-wrap")
    expect(bo_field).to_have_value("Half a tho")
    expect(bo_field).to_be_focused()
    bo.page.keyboard.type("ught")
    bo.page.keyboard.press("Enter")
    expect(ann.page.locator('[data-zone="doing"] .tile-label').last).to_have_text("Half a thought")
    # Rename it in place.
    ann.page.locator(f'[data-zone-wrap="{zone_id}"] [data-action="rename-zone"]').click()
    ann.page.locator(".inline-edit").fill("Blocked")
    ann.page.keyboard.press("Enter")
    expect(bo.page.locator(f'[data-zone-wrap="{zone_id}"] .zone-title')).to_have_text("Blocked")
    # A card can be added to it, and moved there by dragging.
    bo.page.locator(f'[data-add-card="{zone_id}"] input').fill("Waiting on design")
    bo.page.keyboard.press("Enter")
    expect(ann.page.locator(f'[data-zone="{zone_id}"] .tile-label')).to_have_text(["Waiting on design"])
    # A column with cards cannot be removed: it says why and nothing changes.
    ann.page.locator('[data-zone-wrap="done"] [data-action="remove-zone"]').click()
    expect(ann.page.locator("#toast")).to_contain_text("still has cards")
    expect(bo.page.locator('[data-zone-wrap="done"]')).to_have_count(1)
    # Emptied, it can.
    bo.tile("t6").hover()
    bo.tile("t6").locator('[data-action="remove-card"]').click()
    expect(ann.tile("t6")).to_have_count(0)
    ann.page.locator('[data-zone-wrap="done"] [data-action="remove-zone"]').click()
    expect(bo.page.locator('[data-zone-wrap="done"]')).to_have_count(0)

    # The board title, edited in the toolbar.
    ann.page.click("#board-title")
    ann.page.locator(".inline-edit").fill("Sprint 12 <script>")
    ann.page.keyboard.press("Enter")
    expect(bo.page.locator("#board-title")).to_have_text("Sprint 12 <script>")
    expect(bo.page).to_have_title("Sprint 12 <script> — shuffleboard")
    # Undo (Ctrl+Z) renames it back, on both pages.
    ann.page.locator("body").click(position={"x": 5, "y": 700})
    ann.page.keyboard.press("Control+z")
    expect(bo.page.locator("#board-title")).not_to_have_text("Sprint 12 <script>")
    # Undo of the column's removal brings it back, empty, where it was.
    ann.page.keyboard.press("Control+z")
    expect(bo.page.locator('[data-zone-wrap]').nth(2).locator(".zone-title")).to_have_text("Done")


def test_a_grid_adds_cards_from_its_heading(clients, server):
    ann, bo = clients("Ann"), clients("Bo")
    ann.page.locator('[data-zone-wrap="grid"] [data-action="add-card"]').click()
    ann.page.locator(".inline-edit").fill("Cyan twice")
    ann.page.keyboard.press("Enter")
    for c in (ann, bo):
        expect(c.page.locator('[data-zone="grid"] [data-item]').last.locator(".tile-label")).to_have_text("Cyan twice")
    # Escape leaves nothing behind.
    ann.page.locator('[data-zone-wrap="grid"] [data-action="add-card"]').click()
    ann.page.locator(".inline-edit").fill("never")
    ann.page.keyboard.press("Escape")
    expect(ann.page.locator(".inline-edit")).to_have_count(0)
    expect(ann.page.locator('[data-zone="grid"] [data-item]')).to_have_count(13)
    assert server.board("b1")["seq"] == 1
