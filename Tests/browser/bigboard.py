"""Big boards for the browser tests and the Chromium benchmark (issue 36): a board of N cards in
kanban columns written with `shuffleboard import` into a data directory (a board creation's body
is bounded at 256 KiB, too small for thousands of cards), for a server to start on."""
import json
import subprocess
from pathlib import Path


def write_big_board(binary, data_dir, board_id, columns, per_column, title="Big board", layouts=None):
    """Imports a board of `columns` list zones (`col1`…) of `per_column` cards each (`c1`… in
    order; `per_column` may be a list, a size per column) into `data_dir`; returns the zones as
    {zone id: [item ids]}. `layouts`: a zone's layout members instead of a list, one dict a zone
    (e.g. {"layout": "grid", "columns": 6}; None for a list)."""
    sizes = per_column if isinstance(per_column, list) else [per_column] * columns
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    palette = ["#ffe08a", "#b5e3ff", "#c8f2c2", "#ffc9de", "#e2d6ff"]
    items, zones, placed = [], [], {}
    n = 0
    for z, size in enumerate(sizes):
        ids = []
        for _ in range(size):
            n += 1
            ids.append(f"c{n}")
            items.append({"id": f"c{n}", "label": f"Card {n}", "color": palette[n % len(palette)], "on": False})
        zone_id = f"col{z + 1}"
        shape = (layouts[z] if layouts and z < len(layouts) else None) or {"layout": "list"}
        zones.append({"id": zone_id, "items": ids, "title": f"Column {z + 1}", **shape})
        placed[zone_id] = ids
    archive = {
        "format": "shuffleboard-board", "version": 1,
        "board": {"id": board_id, "title": title, "columns": 4, "zones": zones, "items": items},
        "baseSeq": 0, "ops": [],
    }
    path = data_dir.parent / f"{board_id}-import.json"
    path.write_text(json.dumps(archive))
    subprocess.run([binary, "import", str(path), "--data", str(data_dir)], check=True, timeout=120,
                   stdout=subprocess.DEVNULL)
    return placed
