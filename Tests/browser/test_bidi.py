"""Issue 29, finding 7, in Chromium: a card label holding U+202E (RIGHT-TO-LEFT OVERRIDE) reverses
only itself. Before, the History line read "Mallory swapped Invoice · egnarO dna won tsuj": the
override ran on to the end of the line. Now every text a client wrote is isolated (<bdi>,
`unicode-bidi: isolate`), so the words after it keep their order, measured from where the
browser draws each character.

Waits are Playwright expectations with timeouts; nothing sleeps to synchronise.
"""
from playwright.sync_api import expect

# For each string of `needles`, the x of the left edge of each of its characters as drawn in the
# first text node of `root` (or its descendants) holding it, and the line's top.
GLYPHS = """(root, needles) => {
  const out = {};
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
  for (const needle of needles) {
    const node = nodes.find((n) => n.data.includes(needle));
    if (!node) { out[needle] = null; continue; }
    const start = node.data.indexOf(needle);
    out[needle] = [...needle].map((c, i) => {
      const r = document.createRange();
      r.setStart(node, start + i);
      r.setEnd(node, start + i + 1);
      const box = r.getBoundingClientRect();
      return { c, x: box.left, top: Math.round(box.top) };
    });
  }
  return out;
}"""


def measure(page, selector, needles):
    """GLYPHS of the first element matching `selector`, found and measured in one evaluation: the
    History list is drawn again when its older board arrives, and an element handle taken before
    that would be measured detached (every box at 0)."""
    return page.evaluate(
        f"([selector, needles]) => ({GLYPHS})(document.querySelector(selector), needles)",
        [selector, needles],
    )


def left_to_right(glyphs):
    """Whether the characters (spaces left out) are drawn left to right on one line."""
    drawn = [g for g in glyphs if g["c"] != " "]
    assert len({g["top"] for g in drawn}) == 1, f"on more than one line: {drawn}"
    return all(a["x"] < b["x"] for a, b in zip(drawn, drawn[1:]))


def test_a_label_with_a_bidi_override_does_not_reverse_the_history_line_after_it(clients, server):
    server.create("kanban", "bidi")
    ann = clients("Ann", board="bidi", viewport={"width": 1600, "height": 900})
    field = ann.page.locator('[data-add-card="todo"] input')
    field.fill("Inv \u202eoice")
    field.press("Enter")
    expect(field).to_have_value("")
    expect(ann.page.locator('[data-zone="todo"] .tile-label').last).to_have_text("Inv \u202eoice")

    ann.page.locator("#history-toggle").click()
    entry = ann.page.locator(".history-entry").first
    expect(entry).to_be_visible()
    expect(entry).to_have_text("Ann added Inv \u202eoice to To do · just now")
    # The label itself is reversed (the override is the author's), the words after it are not.
    drawn = measure(ann.page, ".history-entry", ["To do", "just now", "Inv \u202eoice"])
    assert drawn["To do"] and drawn["just now"], drawn
    assert left_to_right(drawn["To do"]), drawn["To do"]
    assert left_to_right(drawn["just now"]), drawn["just now"]
    label_right = max(g["x"] for g in drawn["Inv \u202eoice"])
    assert label_right < drawn["To do"][0]["x"], "the column is drawn after the label"
    # The label's own run is contained: its letters after the override are reversed in place.
    oice = [g for g in drawn["Inv \u202eoice"] if g["c"] in "oice"]
    assert [g["c"] for g in sorted(oice, key=lambda g: g["x"])] == list("ecio")

    # The toast of its removal keeps the order after the label too.
    card = ann.page.locator('[data-zone="todo"] [data-item]').last
    card.focus()
    ann.page.keyboard.press("Delete")
    toast = ann.page.locator("#toast")
    expect(toast).to_contain_text("Removed")
    drawn = measure(ann.page, "#toast", ["”."])
    assert drawn["”."] and left_to_right(drawn["”."]), drawn
