"""Release one table with a peer's Mondrian, in the peer's own virtual
environment (bench_attacks.py makes them: each pins its own numpy and pandas).

    python mondrian_worker.py PEER IN.csv SPEC.json OUT.csv

PEER: ``anonypyx`` (``anonypyx.Anonymiser(df, k=k, feature_columns=qi,
algorithm="Mondrian")``, machine-readable: numbers as ``{col}_min`` and
``{col}_max``, categories as one true/false column per value, written here as
the class's values joined by "|") or ``lighthouse`` (Project Lighthouse's
Core Mondrian, ``project_lighthouse_anonymize.k_anonymize`` with its default
data-quality targets: numbers published as their class's mean, categories as
the value or ``*``, a few records suppressed). SPEC: {"qi": [...], "text":
[...] (the categorical quasi-identifiers), "k"}. IN holds a ``row`` column
(each row's number), the quasi-identifiers and the sensitive column; OUT is
the release, one row per published record with its ``row``.
"""
import json
import logging
import sys

import pandas as pd


def anonypyx(df: pd.DataFrame, qi: list, text: list, k: int) -> pd.DataFrame:
    import anonypyx

    values = {c: df[c].unique().tolist() for c in text}
    frame = df.astype({c: "category" for c in text})
    # every column but the quasi-identifiers is kept per record (``row`` makes each record its own line, count 1)
    out = anonypyx.Anonymiser(frame, k=k, feature_columns=qi, algorithm="Mondrian").anonymise()
    for c in text:
        flags = out[[f"{c}_{v}" for v in values[c]]].to_numpy(dtype=bool)
        out[c] = ["|".join(v for v, f in zip(values[c], row) if f) for row in flags]
    return out.drop(columns=[f"{c}_{v}" for c in text for v in values[c]] + ["count"])


def lighthouse(df: pd.DataFrame, qi: list, text: list, k: int) -> pd.DataFrame:
    from project_lighthouse_anonymize import k_anonymize

    out, _, _ = k_anonymize(logging.getLogger("lighthouse"), df, qi, k, {}, "row", parallelism=None)
    return out


def main() -> None:
    peer, source, spec_file, out_file = sys.argv[1:5]
    with open(spec_file) as fh:
        spec = json.load(fh)
    df = pd.read_csv(source, dtype={c: object for c in spec["text"]}, keep_default_na=False)
    release = {"anonypyx": anonypyx, "lighthouse": lighthouse}[peer](df, spec["qi"], spec["text"], spec["k"])
    release.sort_values("row").to_csv(out_file, index=False)


if __name__ == "__main__":
    main()
