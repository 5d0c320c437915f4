"""Release one table with a peer's Mondrian, in the peer's own virtual
environment (bench/common.py makes them: each pins its own numpy and pandas).

    python mondrian_worker.py PEER IN.csv SPEC.json OUT.csv

PEER, each through the package's documented entry point:

- ``anonypyx``: ``anonypyx.Anonymiser(df, k=k, feature_columns=qi,
  algorithm="Mondrian")``, machine-readable: numbers as ``{col}_min`` and
  ``{col}_max``, categories as one true/false column per value, written here
  as the class's values joined by "|";
- ``lighthouse``: Project Lighthouse's Core Mondrian,
  ``project_lighthouse_anonymize.k_anonymize`` with its default data-quality
  targets (``default_dq_metric_to_minimum_dq``) and without dynamic
  breakout: numbers published as their class's mean, categories as the value
  or ``*``, a few records suppressed (absent from OUT);
- ``lighthouse-ageX``: the same with its dynamic breakout set to favour the
  location: ``exclude_qids`` the location and age, ``rilm__lat`` and
  ``rilm__lon`` 1.0 (the location is cut as long as a cut can narrow it),
  ``rilm__age`` X (age is not cut once its class's revised information loss
  score reaches X: a lower X leaves more cuts to the location), the
  categories at the default ``rilm_categorical__minimum`` (0.90),
  ``dynamic_breakout_rilm_multiplier`` 0 (the breakout score is the target
  itself);
- ``lighthouse-original``: the package's Original Mondrian
  (``k_anonymize(..., use_original_mondrian=True)``: median cuts of the
  widest normalized range, class means); it takes numbers only, so each
  category is given as its value's code (values in sorted order), published
  as the class's mean code as the package publishes any number.

SPEC: {"qi": [...], "text": [...] (the categorical quasi-identifiers), "k"}.
IN holds a ``row`` column (each row's number), the quasi-identifiers and any
other column; OUT is the release, one row per published record with its
``row``.
"""
import json
import logging
import sys

import pandas as pd

AGE = "age"
LOCATION = ("lat", "lon")


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


def lighthouse(df: pd.DataFrame, qi: list, text: list, k: int, variant: str = "") -> pd.DataFrame:
    from project_lighthouse_anonymize import default_dq_metric_to_minimum_dq, k_anonymize

    log = logging.getLogger("lighthouse")
    if variant == "original":
        coded = df.assign(**{c: df[c].map({v: i for i, v in enumerate(sorted(df[c].unique()))}) for c in text})
        out, _, _ = k_anonymize(log, coded, qi, k, {}, "row", parallelism=None, use_original_mondrian=True)
        return out
    if not variant:
        out, _, _ = k_anonymize(log, df, qi, k, {}, "row", parallelism=None)
        return out
    held = float(variant.removeprefix("age"))
    targets = {**default_dq_metric_to_minimum_dq(), **{f"rilm__{c}": 1.0 for c in LOCATION}, f"rilm__{AGE}": held}
    out, _, _ = k_anonymize(log, df, qi, k, {}, "row", exclude_qids=[*LOCATION, AGE], dq_metric_to_minimum_dq=targets,
                            dynamic_breakout_rilm_multiplier=0.0, parallelism=None)
    return out


def release(peer: str, df: pd.DataFrame, qi: list, text: list, k: int) -> pd.DataFrame:
    if peer == "anonypyx":
        return anonypyx(df, qi, text, k)
    name, _, variant = peer.partition("-")
    if name != "lighthouse":
        raise SystemExit(f"unknown peer {peer}")
    return lighthouse(df, qi, text, k, variant)


def main() -> None:
    peer, source, spec_file, out_file = sys.argv[1:5]
    with open(spec_file) as fh:
        spec = json.load(fh)
    df = pd.read_csv(source, dtype={c: object for c in spec["text"]}, keep_default_na=False)
    out = release(peer, df, spec["qi"], spec["text"], spec["k"])
    out.sort_values("row").to_csv(out_file, index=False)


if __name__ == "__main__":
    main()
