"""Boards in and out in a real browser (issue 37): "Import from Trello" on the start page takes a
Trello "Export as JSON" file (Tests/fixtures/trello-export.json, built as Trello writes them by
Tests/process/trello_export.py), shows the report of what came over and what did not, then
opens the board; the board's Export menu downloads the CSV and the JSON the server serves.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise."""
import csv
import io
import json
import os
import shutil

from playwright.sync_api import expect

from harness import OUTPUT, ROOT

FIXTURE = os.path.join(ROOT, "Tests", "fixtures", "trello-export.json")


def test_import_a_trello_file_from_the_start_page_see_the_report_then_export_csv(contexts, server):
    page = contexts().new_page()
    page.goto(server.url + "/")
    form = page.locator("#trello-form")
    expect(form).to_be_visible()
    form.locator("#trello-file").set_input_files(FIXTURE)
    # The name comes from the export's board name.
    expect(form.locator("#trello-id")).to_have_value("launch")
    form.get_by_role("button", name="Import").click()
    report = page.locator("#trello-report")
    expect(report).to_be_visible()
    expect(report.locator("h3")).to_have_text("Imported “Launch”")
    expect(report.locator(".report-imported li")).to_have_text([
        "3 lists", "6 cards", "4 labels", "4 checklist items", "3 comments", "2 archived cards"])
    dropped = report.locator(".report-dropped")
    for line in ("3 attachments", "4 custom fields", "1 stickers", "2 votes", "1 power-up data",
                 "1 closed lists (their cards are archived)"):
        expect(dropped).to_contain_text(line)
    page.screenshot(path=os.path.join(OUTPUT, "trello-import.png"), full_page=True)
    assert server.board("launch")["board"]["title"] == "Launch"

    # Then the board: its lists and cards.
    report.get_by_role("link", name="Open the board").click()
    expect(page.locator('[data-zone="tl1"] [data-item]')).to_have_count(2)
    expect(page.locator('[data-zone="tl2"]')).to_contain_text("=SUM(A1:A9)")

    # Export, CSV: the file the browser saves is the server's CSV, which Python's csv module reads.
    page.locator("#export-menu summary").click()
    with page.expect_download() as info:
        page.locator("#export-csv").click()
    download = info.value
    assert download.suggested_filename == "launch.csv"
    saved = os.path.join(OUTPUT, "launch.csv")
    download.save_as(saved)
    with open(saved, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0][:3] == ["zone", "label", "description"]
    assert ["Doing", "'=SUM(A1:A9)"] == rows[3][:2] or any(r[1] == "'=SUM(A1:A9)" for r in rows)
    assert len(rows) == 7
    # And JSON: the archive `shuffleboard import` reads.
    page.locator("#export-menu summary").click()
    page.screenshot(path=os.path.join(OUTPUT, "export-menu.png"))
    with page.expect_download() as info:
        page.locator("#export-json").click()
    archive = json.loads(open(info.value.path(), encoding="utf-8").read())
    assert archive["format"] == "shuffleboard-board" and archive["board"]["id"] == "launch"
    assert len(archive["comments"]) == 3


def test_an_export_that_is_not_trello_is_refused_with_the_servers_reason(contexts, server, tmp_path):
    page = contexts().new_page()
    contexts.allow("400")  # the browser logs the refused request
    page.goto(server.url + "/")
    bad = tmp_path / "notes.json"
    bad.write_text(json.dumps({"name": "Notes", "cards": []}))
    page.locator("#trello-file").set_input_files(str(bad))
    expect(page.locator("#trello-id")).to_have_value("notes")
    page.locator("#trello-form").get_by_role("button", name="Import").click()
    expect(page.locator(".toast").last).to_contain_text('"lists" must be an array')
    expect(page.locator("#trello-report")).to_be_hidden()
    assert server.board("notes") is None
