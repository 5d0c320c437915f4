"""The machinery of the table-driven bad-input tests: good inputs, one thing
wrong per case, and the check that a refused command changed nothing.

Every case runs one subcommand on a folder holding good inputs and an output
file that already exists (``out.csv``), with one thing wrong. It must end
with exit code 2 and one line on stderr naming the problem, no traceback, and
the folder exactly as it was: no new file (hidden staging included), no
changed file, the existing output untouched.
"""
import hashlib
import os
import shutil
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from geoanon.datasets import data_path, nc_counties

PRECIOUS = b"an earlier output that must survive\n"
ROWS = 400
SOURCES = ("in.csv", "regions.geojson", "centroids.csv", "edges.csv", "hier.csv")


def make_sources(folder):
    """The good inputs, made once: records with coordinates, NC county ids,
    names and other quasi-identifiers; the county polygons, their centroids
    and rook edges; an ARX hierarchy of the sensitive column."""
    nc = nc_counties()
    rng = np.random.default_rng(0)
    df = pd.DataFrame({
        "id": [f"{i:05d}" for i in range(ROWS)],
        "lat": np.round(35 + rng.random(ROWS) * 1.5, 4).astype(str),
        "lon": np.round(-82 + rng.random(ROWS) * 6, 4).astype(str),
        "zip": rng.choice(nc.FIPS.to_numpy(), size=ROWS, p=nc.BIR74 / nc.BIR74.sum()),
        "name": rng.choice(["ann", "bob", "cy", "dee", "eve", "fay", "gus"], ROWS),
        "age": rng.integers(20, 80, ROWS).astype(str),
        "sex": rng.choice(["F", "M"], ROWS),
        "race": rng.choice(["a", "b", "c"], ROWS),
        "diagnosis": rng.choice(["d1", "d2", "d3", "d4"], ROWS),
    })
    df.to_csv(folder / "in.csv", index=False)
    nc.to_file(folder / "regions.geojson")
    import shapely

    xy = shapely.get_coordinates(shapely.centroid(nc.geometry.values))
    pd.DataFrame({"FIPS": nc.FIPS, "lat": xy[:, 1], "lon": xy[:, 0]}).to_csv(folder / "centroids.csv", index=False)
    shutil.copy(data_path("nc_counties_rook_edges.csv"), folder / "edges.csv")
    (folder / "hier.csv").write_text("d1;x;*\nd2;x;*\nd3;y;*\nd4;y;*\n")
    return folder


def header_and(rows, text=None):
    """A CSV of the standard columns with these rows (each a dict of overrides)."""
    base = {"id": "1", "lat": "35.5", "lon": "-80.5", "zip": "37001", "name": "ann", "age": "40", "sex": "F",
            "race": "a", "diagnosis": "d1"}
    lines = [",".join(base)]
    for row in rows:
        lines.append(",".join(str({**base, **row}[c]) for c in base))
    return "\n".join(lines) + "\n" if text is None else text


def records(n=ROWS, overrides=None):
    """``n`` good records, with ``overrides`` = {position: {column: value}}."""
    overrides = overrides or {}
    rng = np.random.default_rng(1)
    rows = []
    for i in range(n):
        row = {"id": f"{i:05d}", "lat": f"{35 + rng.random() * 1.5:.4f}", "lon": f"{-82 + rng.random() * 6:.4f}",
               "zip": "37001", "name": ["ann", "bob", "cy"][i % 3], "age": str(20 + i % 50), "sex": "FM"[i % 2],
               "race": "abc"[i % 3], "diagnosis": f"d{1 + i % 4}"}
        row.update(overrides.get(i, {}))
        rows.append(row)
    return header_and(rows)


@dataclass
class Case:
    id: str
    command: str
    message: str
    set: dict = field(default_factory=dict)      # flag -> value (None drops the flag; "IN" is the input)
    files: dict = field(default_factory=dict)    # extra files: name -> text, bytes, or a callable(path)
    flags: tuple = ()                            # extra argument-less flags or pairs appended as they are


def drop_field(text, line_index):
    """``text`` with the last field of line ``line_index`` (0 = header) removed."""
    lines = text.split("\n")
    lines[line_index] = lines[line_index].rsplit(",", 1)[0]
    return "\n".join(lines)


def regions_with(change, crs="EPSG:4326"):
    """A maker of the NC counties changed by ``change`` (and without CRS when ``crs`` is None)."""
    def make(path):
        g = change(nc_counties().copy())
        (g.set_crs(None, allow_override=True) if crs is None else g).to_file(path)
    return make


def centroids_with(lat=None, lon=None):
    import shapely

    nc = nc_counties()
    xy = shapely.get_coordinates(shapely.centroid(nc.geometry.values))
    frame = pd.DataFrame({"FIPS": nc.FIPS, "lat": xy[:, 1].astype(str), "lon": xy[:, 0].astype(str)})
    for column, changes in (("lat", lat or {}), ("lon", lon or {})):
        for i, v in changes.items():
            frame.loc[i, column] = v
    return frame.to_csv(index=False)


def edges_isolating(path):
    """NC rook edges without the edges of the county holding the fewest
    records, so that it is a component of its own, lighter than k."""
    edges = pd.read_csv(data_path("nc_counties_rook_edges.csv"), dtype=str)
    lonely = pd.read_csv(path.parent / "in.csv", dtype=str)["zip"].value_counts().index[-1]
    a, b = edges.columns[:2]
    edges[(edges[a] != lonely) & (edges[b] != lonely)].to_csv(path, index=False)


def materialize(folder, files):
    for name, content in files.items():
        path = folder / name
        if callable(content):
            content(path)
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def snapshot(folder):
    """Every entry under ``folder`` (hidden ones too) with its kind and content hash."""
    state = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                state[rel] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                state[rel] = ("dir",)
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    state[rel] = ("file", hashlib.sha256(f.read()).hexdigest())
            else:
                state[rel] = ("other",)
    return state


def argv(defaults, case, folder):
    options = {**defaults[case.command], **case.set}
    argv = [case.command, str(options.pop("IN")).replace("{d}", str(folder))]
    for flag, value in options.items():
        if value is not None:
            value = str(value).replace("{d}", str(folder))
            argv += [f"{flag}={value}"] if value.startswith("-") else [flag, value]
    return argv + list(case.flags)


def refused(cli, case, defaults, sources, folder, monkeypatch):
    """Run ``case`` in ``folder`` (a copy of ``sources``, an earlier
    ``out.csv``, the case's files) and check it was refused with nothing changed."""
    for name in SOURCES:
        if (sources / name).exists():
            shutil.copy(sources / name, folder / name)
    (folder / "out.csv").write_bytes(PRECIOUS)
    materialize(folder, case.files)
    monkeypatch.chdir(folder)
    before = snapshot(folder)
    code, out, err = cli(*argv(defaults, case, folder))
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert case.message in lines[0], lines[0]
    assert "no role" not in lines[0] or "no role" in case.message, lines[0]     # refused for the case's own reason
    assert "np." not in lines[0] and "on_small=" not in lines[0] and "missing='" not in lines[0], lines[0]
    assert snapshot(folder) == before
    assert (folder / "out.csv").read_bytes() == PRECIOUS
