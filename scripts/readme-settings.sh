#!/bin/sh
# Writes README's configuration table from the settings table (Sources/shuffleboard/Settings+*.swift):
# what `shuffleboard serve --settings-markdown` prints goes between README's settings markers.
# Tests/process/test_cli.py fails while the two differ.
set -eu
cd "$(dirname "$0")/.."
bin="${SHUFFLEBOARD_BIN:-$(swift build --show-bin-path)/shuffleboard}"
"$bin" serve --settings-markdown > .settings.md.tmp
python3 - <<'PY'
import pathlib
readme = pathlib.Path("README.md")
text = readme.read_text()
begin, end = "<!-- settings:begin -->\n", "<!-- settings:end -->"
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
table = pathlib.Path(".settings.md.tmp").read_text()
readme.write_text(head + begin + table + end + tail)
PY
rm -f .settings.md.tmp
