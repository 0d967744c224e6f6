"""Issue 34's inbox in two Chromium pages: Ann mentions Bo in a comment; Bo's bell counts it at
once (a `notice` on his socket), its list says who mentioned him where, and a click opens the
card; on the start page the bell shows the inbox too, and its notice opens the board and the card.
Marking read brings the count to zero. Waits are Playwright expectations; nothing sleeps.
"""
from conftest import OUTPUT
from playwright.sync_api import expect


def open_panel(client, item):
    client.tile(item).click()
    dialog = client.page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    return dialog


def test_a_mention_rings_the_other_pages_bell_and_opens_the_card(clients, server):
    server.create("kanban", "ib1")
    ann, bo = clients("Ann", board="ib1"), clients("Bo", board="ib1")
    items = server.board("ib1")["board"]["zones"][0]["items"]
    item, other = items[0], items[1]
    bell = bo.page.locator("#inbox-toggle")
    expect(bell).to_have_attribute("data-unread", "0")
    expect(ann.page.locator(".inbox-count")).to_be_hidden()

    panel = open_panel(ann, item)
    composer = panel.get_by_label("Write a comment (Markdown; @ mentions someone)")
    composer.fill("Can you take this? @B")
    panel.get_by_role("listbox", name="People to mention").get_by_role("button", name="Bo").click()
    panel.get_by_role("button", name="Comment", exact=True).click()
    panel.get_by_role("button", name="Close").click()

    # Bo's bell counts it at once; Ann's (the author's) does not.
    expect(bell).to_have_attribute("data-unread", "1")
    expect(bo.page.locator(".inbox-count")).to_have_text("1")
    expect(bell).to_have_accessible_name("Notifications: 1 unread")
    expect(ann.page.locator("#inbox-toggle")).to_have_attribute("data-unread", "0")
    bell.click()
    notices = bo.page.locator("#inbox-panel .inbox-item")
    expect(notices).to_have_count(1)
    label = server.board("ib1")["board"]["items"]
    card_label = next(i["label"] for i in label if i["id"] == item)
    expect(notices.first).to_contain_text(f"Ann mentioned you on “{card_label}”")
    expect(notices.first).to_have_class("inbox-item is-unread")
    OUTPUT.mkdir(parents=True, exist_ok=True)
    bo.page.screenshot(path=str(OUTPUT / "inbox-board.png"))
    notices.first.click()
    dialog = bo.page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".comments .comment-text")).to_contain_text("Can you take this?")
    expect(bell).to_have_attribute("data-unread", "0")
    dialog.get_by_role("button", name="Close").click()

    # An assignment by Ann: the start page's bell (no socket: it reads the inbox) shows it, and
    # its notice opens the board with the card.
    panel = open_panel(ann, other)
    panel.locator(".people .person", has_text="Bo").click()
    panel.get_by_role("button", name="Close").click()
    expect(bell).to_have_attribute("data-unread", "1")
    bo.page.goto(f"{server.url}/")
    home_bell = bo.page.locator("#inbox-toggle")
    expect(home_bell).to_be_visible()
    home_bell.click()
    first = bo.page.locator("#inbox-panel .inbox-item").first
    expect(first).to_contain_text("Ann assigned you to")
    expect(bo.page.locator(".inbox-count")).to_have_text("1")
    bo.page.screenshot(path=str(OUTPUT / "inbox-home.png"))
    target = bo.page.locator("#inbox-panel .inbox-item").last
    expect(target).to_contain_text("mentioned you")
    target.click()
    expect(bo.page).to_have_url(f"{server.url}/?board=ib1")
    dialog = bo.page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator(".comments .comment-text")).to_contain_text("Can you take this?")
