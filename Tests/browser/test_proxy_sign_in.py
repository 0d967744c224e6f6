"""Sign-in through a company's proxy (issue 34), in Chromium behind the real HAProxy of
deploy/haproxy-sso.cfg (basic auth from a userlist; the browser logs in with the context's
credentials): a signed-in person joins without any token prompt under the proxy's name; an admin
(by a grant) sees the Share dialog's Members section and makes an editor a viewer there, and the
editor's page is told and its drags change nothing from then on."""
import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ports import free_port
from test_auth import SECRET, pointer_drag, token  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]




def answers(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, ConnectionError):
        return 0


@pytest.fixture
def sso(make_server, tmp_path):
    if not shutil.which("haproxy"):
        pytest.skip("haproxy is not installed (apt-get install haproxy)")
    secrets = tmp_path / "secrets"
    secrets.write_text(SECRET + "\n")
    server = make_server(["--auth-secret", str(secrets), "--auth-proxy-header", "X-Forwarded-User",
                          "--auth-proxy-from", "127.0.0.1"])
    server.secrets = str(secrets)
    people = tmp_path / "people.cfg"
    hashed = {u: subprocess.run(["openssl", "passwd", "-6", f"{u}'s password"], check=True, capture_output=True,
                                text=True).stdout.strip() for u in ("ada", "bo")}
    people.write_text(f"userlist people\n    user ada password {hashed['ada']}\n    user bo password {hashed['bo']}\n")
    front, guests = free_port(), free_port()
    env = dict(os.environ, SHUFFLEBOARD_BIND=f"127.0.0.1:{front}", SHUFFLEBOARD_GUEST_BIND=f"127.0.0.1:{guests}",
               SHUFFLEBOARD_SERVER=f"127.0.0.1:{server.port}")
    log = open(tmp_path / "haproxy.log", "w")
    proc = subprocess.Popen(["haproxy", "-db", "-f", str(ROOT / "deploy" / "haproxy-sso.cfg"), "-f", str(people)],
                            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 20
        while answers(f"http://127.0.0.1:{guests}/healthz") != 200:
            assert proc.poll() is None, (tmp_path / "haproxy.log").read_text()
            assert time.monotonic() < deadline, "haproxy did not answer"
            time.sleep(0.05)
        server.front = f"http://127.0.0.1:{front}"
        yield server
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()


def signed_in(contexts, sso, user):
    context = contexts(http_credentials={"username": user, "password": f"{user}'s password"})
    p = context.new_page()
    p.goto(f"{sso.front}/?board=club")
    return p


def test_a_signed_in_admin_makes_an_editor_a_viewer_from_the_share_dialog(contexts, sso):
    # Ada is an admin of the board by a grant (made here with a token, straight to the server).
    admin = token(sso, "club", "admin")
    request = urllib.request.Request(f"{sso.url}/api/boards", data=json.dumps({"id": "club", "template": "colors"}).encode(),
                                     method="POST", headers={"content-type": "application/json",
                                                             "authorization": f"Bearer {admin}"})
    urllib.request.urlopen(request, timeout=5).read()
    request = urllib.request.Request(f"{sso.url}/api/boards/club/members/ada", data=b'{"role":"admin"}', method="PUT",
                                     headers={"content-type": "application/json", "authorization": f"Bearer {admin}"})
    urllib.request.urlopen(request, timeout=5).read()

    ada = signed_in(contexts, sso, "ada")
    bo = signed_in(contexts, sso, "bo")
    for p, name in ((ada, "ada"), (bo, "bo")):
        expect(p.locator("#app")).to_have_attribute("data-connected", "true", timeout=10000)
        expect(p.locator("#name")).to_have_value(name)
        assert p.locator("#name").get_attribute("readonly") is not None
        assert p.evaluate("Object.keys(sessionStorage).filter((k) => k.startsWith('shuffleboard.token'))") == []
    expect(ada.locator("#users")).to_contain_text("bo", timeout=10000)
    expect(bo.locator("#share")).to_have_count(0)
    pointer_drag(bo, "t1", "t5")
    for p in (ada, bo):
        expect(p.locator("#app")).to_have_attribute("data-seq", "1", timeout=10000)

    ada.locator("#share").click()
    members = ada.locator("#share-members-section")
    expect(members).to_be_visible(timeout=10000)
    expect(members).to_contain_text("can edit this board unless given a role here")
    expect(members.locator("[data-member='ada'] select")).to_have_value("admin")
    members.locator("#share-member-id").fill("bo")
    members.locator("#share-member-role").select_option("view")
    members.locator("#share-member-give").click()
    expect(members.locator("[data-member='bo'] select")).to_have_value("view", timeout=10000)
    expect(bo.locator("#toast")).to_contain_text("You can now only watch this board", timeout=10000)
    ada.screenshot(path=str(Path(os.environ.get("SHUFFLEBOARD_TEST_OUTPUT", "/tmp")) / "proxy-members.png"))
    ada.locator("#share-close").click()
    pointer_drag(bo, "t2", "t6")
    pointer_drag(ada, "t3", "t4")
    expect(ada.locator("#app")).to_have_attribute("data-seq", "2", timeout=10000)
    expect(bo.locator("#app")).to_have_attribute("data-seq", "2", timeout=10000)
    # Taking the role back: Bo edits again.
    ada.locator("#share").click()
    members.locator("[data-member-remove='bo']").click()
    expect(bo.locator("#toast")).to_contain_text("You can now edit this board", timeout=10000)
    pointer_drag(bo, "t2", "t6")
    expect(ada.locator("#app")).to_have_attribute("data-seq", "3", timeout=10000)
