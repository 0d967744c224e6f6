"""Share links made in the app (issue 34): an admin's Share dialog makes an edit link; a third
page opens it, picks a name, and drags; the admin revokes the link and that page is told and
stops editing. The link's token leaves the address bar for sessionStorage."""
import re

from playwright.sync_api import expect

from test_auth import page, pointer_drag, secured, token  # noqa: F401


def test_an_admin_shares_an_edit_link_a_third_page_drags_and_the_revoke_ends_it(contexts, secured):  # noqa: F811
    admin = page(contexts, f"{secured.url}/?board=club#token={token(secured, 'club', 'admin', 'Ada')}")
    expect(admin.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    member = page(contexts, f"{secured.url}/?board=club#token={token(secured, 'club', 'edit', 'Bo')}")
    expect(member.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    # Only an admin gets the Share button.
    expect(member.locator("#share")).to_have_count(0)
    admin.locator("#share").click()
    dialog = admin.locator("#share-dialog")
    expect(dialog).to_be_visible()
    expect(dialog.locator("#share-links")).to_contain_text("No links yet")
    dialog.locator("#share-role").select_option("edit")
    dialog.locator("#share-ttl").select_option("24h")
    dialog.locator("#share-make").click()
    expect(dialog.locator("#share-url")).to_be_visible(timeout=10000)
    url = dialog.locator("#share-url").input_value()
    assert re.fullmatch(re.escape(secured.url) + r"/b/club#token=[A-Za-z0-9._-]+", url), url
    expect(dialog.locator("#share-links li")).to_have_count(1)
    expect(dialog.locator("#share-links")).to_contain_text("Can edit")

    guest = page(contexts, url)
    # The name dialog, then the board with that name; the token is off the address bar.
    expect(guest.locator("#join-dialog")).to_be_visible(timeout=10000)
    guest.locator("#join-name").fill("Gail")
    guest.locator("#join-go").click()
    expect(guest.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
    assert guest.evaluate("location.hash") == ""
    assert guest.evaluate("location.search") == "?board=club"
    assert guest.evaluate("sessionStorage.getItem('shuffleboard.token.club')") == url.split("#token=")[1]
    expect(admin.locator("#users")).to_contain_text("Gail", timeout=10000)
    pointer_drag(guest, "t1", "t5")
    for p in (admin, member, guest):
        expect(p.locator("#app")).to_have_attribute("data-seq", "1", timeout=10000)

    # The admin revokes it: the guest's page is told, and its drags change nothing any more.
    dialog.locator("#share-links [data-revoke]").click()
    expect(guest.locator("#conn")).to_have_text("Your access has been revoked", timeout=10000)
    expect(guest.locator("#app")).to_have_attribute("data-connected", "false")
    expect(dialog.locator("#share-links")).to_contain_text("No links yet")
    pointer_drag(guest, "t2", "t6")
    pointer_drag(member, "t3", "t4")
    expect(admin.locator("#app")).to_have_attribute("data-seq", "2", timeout=10000)
    expect(guest.locator("#app")).to_have_attribute("data-seq", "1")
    # The token never went to the server in a request line.
    assert url.split("#token=")[1] not in open(secured.log_path).read()
