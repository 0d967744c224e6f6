"""Issue 21 in two Chromium pages: the History panel lists changes ("Ann removed Fix the login
page · just now"), previews an earlier version read-only while the live board keeps updating, and
"Restore this version" changes the other page's board; Undo brings it back.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
from playwright.sync_api import expect


def labels(client, zone):
    return client.page.eval_on_selector_all(
        f'[data-zone="{zone}"] [data-item] .tile-label', "els => els.map(e => e.textContent)")


def add_card(client, zone, label):
    field = client.page.locator(f'[data-add-card="{zone}"] input')
    field.fill(label)
    field.press("Enter")
    expect(field).to_have_value("")


def test_history_preview_and_restore_reach_the_other_page(clients, server):
    server.create("kanban", "kh")
    ann, bo = clients("Ann", board="kh"), clients("Bo", board="kh")
    add_card(ann, "todo", "<b>Retro</b>")  # seq 1
    ann.tile("t4").focus()
    ann.page.keyboard.press("Delete")  # seq 2: "Fix the login page" goes
    expect(bo.tile("t4")).to_have_count(0)

    # Keyboard: the toolbar button opens the panel; its list is newest first, names who and what.
    bo.page.locator("#history-toggle").focus()
    bo.page.keyboard.press("Enter")
    panel = bo.page.locator("#history")
    expect(panel).to_be_visible()
    expect(bo.page.locator("#history-toggle")).to_have_attribute("aria-expanded", "true")
    entries = bo.page.locator(".history-entry")
    expect(entries).to_have_count(2)
    expect(entries.nth(0)).to_have_text("Ann removed Fix the login page · just now")
    expect(entries.nth(1)).to_have_text("Ann added <b>Retro</b> to To do · just now")
    expect(panel.locator("b")).to_have_count(0)  # a label is text, never markup

    # Preview the board as of change 1: read-only, marked, with the card that was removed since.
    entries.nth(1).click()
    banner = bo.page.locator("#history-banner")
    expect(banner).to_contain_text("Preview (read-only): the board as of change 1")
    preview = bo.page.locator("#history-board")
    expect(preview).to_contain_text("Fix the login page")
    expect(preview.locator("[data-item]")).to_have_count(0)

    # The live board keeps updating under the preview.
    add_card(ann, "todo", "After preview")  # seq 3
    expect(bo.page.locator('[data-zone="todo"] [data-item] .tile-label').last).to_have_text("After preview")
    expect(preview).not_to_contain_text("After preview")
    expect(banner).to_be_visible()

    # Restore (confirmed): Ann's board changes to the version of change 1.
    bo.page.once("dialog", lambda dialog: dialog.accept())
    bo.page.locator("#history-restore").click()
    expect(ann.tile("t4")).to_have_count(1)
    expect(ann.page.locator('[data-zone="todo"]')).not_to_contain_text("After preview")
    assert labels(ann, "todo")[-1] == "<b>Retro</b>"
    expect(ann.page.locator("#app")).to_have_attribute("data-seq", "4")
    expect(bo.tile("t4")).to_have_count(1)
    assert server.board("kh")["seq"] == 4

    # Undo on Bo's page restores the version before the restore, on both pages.
    bo.page.locator("#undo").click()
    expect(ann.tile("t4")).to_have_count(0)
    expect(ann.page.locator('[data-zone="todo"] [data-item] .tile-label').last).to_have_text("After preview")
    expect(bo.page.locator("#app")).to_have_attribute("data-seq", "5")

    # The list shows the restores; Escape closes the panel and gives the focus back.
    expect(entries.nth(0)).to_contain_text("Bo restored the board as of change 3")
    bo.page.locator("#history-title").focus()
    bo.page.keyboard.press("Escape")
    expect(panel).to_be_hidden()
    expect(bo.page.locator("#history-toggle")).to_be_focused()
