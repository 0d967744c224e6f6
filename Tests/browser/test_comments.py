"""Issue 34 in two Chromium pages: a comment written in the card panel, with an `@` mention picked
from the suggestions, shows on the other page's panel at once, rendered inert; only its author
may edit or delete it; Undo takes it back on both pages.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
from playwright.sync_api import expect


def open_panel(client, item):
    client.tile(item).click()
    dialog = client.page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    return dialog


def test_a_comment_with_a_mention_reaches_the_other_page_and_undo_takes_it_back(clients, server):
    server.create("kanban", "cm1")
    ann, bo = clients("Ann", board="cm1"), clients("Bo", board="cm1")
    item = server.board("cm1")["board"]["zones"][0]["items"][0]
    panel = open_panel(ann, item)
    composer = panel.get_by_label("Write a comment (Markdown; @ mentions someone)")
    composer.fill("Ready? **now** <img src=x onerror=\"window.pwned=1\"> @B")
    suggestion = panel.get_by_role("listbox", name="People to mention").get_by_role("button", name="Bo")
    expect(suggestion).to_be_visible()
    suggestion.click()
    expect(composer).to_have_value('Ready? **now** <img src=x onerror="window.pwned=1"> @Bo ')
    panel.get_by_role("button", name="Comment", exact=True).click()

    bo_panel = open_panel(bo, item)
    for p in (panel, bo_panel):
        comment = p.locator(".comments .comment")
        expect(comment).to_have_count(1)
        expect(comment.locator("strong").first).to_have_text("Ann")
        expect(comment.locator(".comment-text strong")).to_have_text("now")
        expect(comment.locator(".comment-text")).to_contain_text("@Bo")
        expect(comment.locator("img")).to_have_count(0)
    for c in (ann, bo):
        assert c.page.evaluate("window.pwned") is None
    # Only the author may edit or delete it.
    expect(bo_panel.get_by_role("button", name="Edit your comment")).to_have_count(0)
    panel.get_by_role("button", name="Edit your comment").click()
    panel.get_by_label("Edit your comment").fill("Ready!")
    panel.get_by_role("button", name="Save").click()
    expect(bo_panel.locator(".comments .comment-text")).to_have_text("Ready!")
    expect(bo_panel.locator(".comments .edited")).to_have_count(1)
    # The server has it, with the mention, and the card counts it.
    page = server.get_json("/api/boards/cm1/items/" + item + "/comments")
    assert page["comments"][0]["text"] == "Ready!" and page["more"] is False
    made = next(op for op in server.get_json("/api/boards/cm1/ops")["ops"] if op["type"] == "comment")
    assert made["comment"]["mentions"][0]["name"] == "Bo" and made["comment"]["mentions"][0]["member"]
    card = next(i for i in server.board("cm1")["board"]["items"] if i["id"] == item)
    assert card["comments"] == 1

    # Undo (the edit, then the comment): Bo's panel follows.
    panel.get_by_role("button", name="Close").click()
    ann.page.locator("#undo").click()
    expect(bo_panel.locator(".comments .comment-text")).to_contain_text("Ready? now")
    ann.page.locator("#undo").click()
    expect(bo_panel.locator(".comments .comment")).to_have_count(0)
    card = next(i for i in server.board("cm1")["board"]["items"] if i["id"] == item)
    assert "comments" not in card
