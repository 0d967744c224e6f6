"""A large board in the browser (issue 10): the user list names some people and says how many
more there are; joins beyond the presence limit arrive as a count."""
import pytest
from playwright.sync_api import expect


@pytest.fixture
def small_limit(make_server):
    return make_server(["--presence-limit", "1"])


def test_a_large_board_lists_some_users_and_counts_the_rest(contexts, small_limit):
    small_limit.create("colors", "crowd", title="crowd")  # a link to a board that is not there asks first
    pages = []
    for name in ("Ann", "Bo"):
        page = contexts().new_page()
        page.goto(f"{small_limit.url}/?board=crowd&name={name}")
        expect(page.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
        pages.append(page)
    ann, bo = pages
    # Bo joined a board past its limit: his welcome names him and counts one more.
    expect(bo.locator("#users")).to_contain_text("and 1 more")
    # Ann heard no join, but the next presence count says there are two.
    expect(ann.locator("#users")).to_contain_text("and 1 more", timeout=5000)
    expect(ann.locator("#users li[data-user]")).to_have_count(1)
