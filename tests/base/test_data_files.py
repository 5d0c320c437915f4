"""data/README.md and the data folder agree: every file the README's table
lists is shipped and every shipped data file is listed; every licence the table
names has its text in data/licenses/, covering the files of the rows that name
it. Reads only the README and the licence files' headers."""
import fnmatch
import re
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[2] / "data"
LICENSES = DATA / "licenses"
NOT_DATA = {"README.md"}                    # besides the scripts (*.py) and the licenses/ folder
# licence names as the table writes them; each has data/licenses/<name, spaces as hyphens>.txt
LICENCE = re.compile(r"\b(?:CC BY(?:-SA|-NC|-ND)* \d\.\d|CC0-\d\.\d|BSD-\d-Clause|MIT|ISC"
                     r"|(?:Apache|GPL|LGPL|AGPL|MPL|EPL|ODbL|PDDL|OGL)-\d\.\d(?:-only|-or-later)?"
                     r"|[Pp]ublic domain)\b")
# a line of each licence's own text, so that a file holds the licence and not only a link
FULL_TEXT = {
    "CC-BY-4.0.txt": "Section 8 – Interpretation.",
    "Apache-2.0.txt": "END OF TERMS AND CONDITIONS",
    "BSD-3-Clause.txt": "Neither the name of",
    "MIT.txt": "Permission is hereby granted, free of charge",
}


def licence_file(name: str) -> str:
    return name.lower().replace(" ", "-") + ".txt" if name.lower() == "public domain" \
        else name.replace(" ", "-") + ".txt"


def table() -> list[tuple[str, str, set[str]]]:
    """(file name or glob, rows cell, licence files named) of each row; "as above" repeats the row above's."""
    rows, above = [], set()
    for line in (DATA / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 4 or cells[0] in ("file", "---"):
            continue
        named = {licence_file(m) for m in LICENCE.findall(cells[3])}
        if cells[3].startswith("as above"):
            named |= above
        rows.append((cells[0].strip("`"), cells[1], named))
        above = named
    return rows


def shipped() -> list[str]:
    return sorted(p.name for p in DATA.iterdir()
                  if p.is_file() and p.name not in NOT_DATA and p.suffix != ".py")


def covers(path: Path) -> list[str]:
    """The data files (names or globs) a licence file's opening "Covers:" paragraph names."""
    head = path.read_text(encoding="utf-8").split("\n\n", 1)[0]
    assert head.startswith("Covers:"), f"{path.name} must start with the data files it covers"
    return [c.strip() for c in head.removeprefix("Covers:").replace("\n", " ").split(",") if c.strip()]


def test_every_row_names_a_licence():
    rows = table()
    assert len(rows) >= 10
    # only invented records (their row says so) may come without a licence
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    for pattern, _, named in rows:
        row = next(line for line in readme.splitlines() if line.startswith(f"| {pattern} |"))
        assert named or "invented records" in row, f"data/README.md names no licence for {pattern}"


@pytest.mark.parametrize("pattern, count", [(p, c) for p, c, _ in table()])
def test_listed_file_is_shipped(pattern, count):
    found = fnmatch.filter(shipped(), pattern)
    assert found, f"data/README.md lists {pattern}, which is not in data/"
    if m := re.fullmatch(r"(\d+) files", count):
        assert len(found) == int(m.group(1)), (pattern, found)


def test_shipped_file_is_listed():
    patterns = [p for p, _, _ in table()]
    unlisted = [f for f in shipped() if not any(fnmatch.fnmatch(f, p) for p in patterns)]
    assert not unlisted, f"data/ holds files that data/README.md does not list: {unlisted}"
    folders = sorted(p.name for p in DATA.iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == ["licenses"]


def test_named_licences_have_their_text():
    named = set().union(*(n for _, _, n in table()))
    assert {"CC-BY-4.0.txt", "Apache-2.0.txt", "BSD-3-Clause.txt", "MIT.txt", "public-domain.txt"} <= named
    there = {p.name for p in LICENSES.iterdir()}
    assert named <= there, f"licences named in data/README.md without a file in data/licenses/: {named - there}"
    assert there <= named, f"data/licenses/ holds files for licences the README does not name: {there - named}"
    for name, line in FULL_TEXT.items():
        assert line in (LICENSES / name).read_text(encoding="utf-8"), f"{name} lacks the licence's full text"


def test_licence_files_cover_the_rows_naming_them():
    files = shipped()
    for path in sorted(LICENSES.iterdir()):
        for entry in covers(path):
            assert fnmatch.filter(files, entry), f"{path.name} covers {entry}, which is not in data/"
    for pattern, _, named in table():
        for name in named:
            assert pattern in covers(LICENSES / name), f"{name} does not say it covers {pattern}"


def test_no_shipped_coordinate_is_null_island(nc_gdf):
    """(0, 0) is a failed geocoding, not a place: no shipped table puts a record or a region there."""
    import numpy as np
    import pandas as pd

    for name in ("us_zip_delaunay_nodes.csv.gz", "demo_patients.csv", "us_airports.csv.gz"):
        coords = pd.read_csv(DATA / name, usecols=["lat", "lon"])
        assert not ((coords["lat"] == 0) & (coords["lon"] == 0)).any(), name
    bounds = nc_gdf.geometry.bounds.to_numpy()
    assert np.all(bounds[:, 0] < -70) and np.all(bounds[:, 1] > 30)
