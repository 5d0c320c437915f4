"""Run anonymeter's singling-out, linkability and inference attacks on one
release, in anonymeter's own virtual environment (it pins numpy < 1.27).

    python anonymeter_worker.py FOLDER SPEC.json OUT.json

FOLDER holds ``ori.csv`` (the released rows as they were: the attacks'
targets), ``control.csv`` (rows from the same source that were not released)
and ``syn.csv`` (the release as records: anonymeter's "synthetic" table), all
with the same columns. SPEC: {"aux": [[...], [...]] (linkability's two column
groups), "qi": [...] (inference's auxiliary columns), "secret": column,
"n_attacks", "n_cols" (multivariate singling out), "n_neighbors",
"max_attempts", "seed", "n_jobs"}. OUT: one object per
attack, {"risk", "ci", "attack", "baseline", "control", each rate with its
error, and "seconds"}.

Seeds: singling out takes ``seed``; linkability and inference draw their
targets with pandas' ``sample``, which uses numpy's global state (seeded
before each attack); linkability's random-guess baseline uses an unseeded
``default_rng()``, replaced here by a seeded one. Singling out also depends
on the order of polars' ``Series.unique`` and ``DataFrame.group_by``, which
varies from run to run: both are made to keep the order of first appearance
(``maintain_order=True``). With these the same inputs give the same figures.
"""
import json
import sys
import time

import numpy as np
import pandas as pd
import polars as pl
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator
from anonymeter.evaluators import linkability_evaluator


def in_order() -> None:
    """polars' ``Series.unique`` and ``DataFrame.group_by`` in the order of first appearance."""
    unique, group_by = pl.Series.unique, pl.DataFrame.group_by
    pl.Series.unique = lambda self, maintain_order=True: unique(self, maintain_order=True)
    pl.DataFrame.group_by = lambda self, *by, maintain_order=True, **named: group_by(self, *by, maintain_order=True,
                                                                                      **named)


def seeded_random_links(seed: int):
    rng = np.random.default_rng(seed)

    def random_links(n_synthetic, n_attacks, n_neighbors):
        return np.array([rng.choice(n_synthetic, size=n_neighbors, replace=False) for _ in range(n_attacks)])

    return random_links


def figures(evaluator, started: float) -> dict:
    results = evaluator.results()
    risk = evaluator.risk()
    rates = {name: getattr(results, f"{name}_rate") for name in ("attack", "baseline", "control")}
    return {"risk": risk.value, "ci": list(risk.ci), **{n: [r.value, r.error] for n, r in rates.items()},
            "seconds": time.perf_counter() - started}


def main() -> None:
    folder, spec_file, out_file = sys.argv[1:4]
    with open(spec_file) as fh:
        spec = json.load(fh)
    ori, control, syn = (pd.read_csv(f"{folder}/{name}.csv", keep_default_na=False, na_values=[""])
                         for name in ("ori", "control", "syn"))
    seed, n = spec["seed"], spec["n_attacks"]
    linkability_evaluator._random_links = seeded_random_links(seed)
    in_order()
    out = {}
    for mode in ("univariate", "multivariate"):
        started = time.perf_counter()
        evaluator = SinglingOutEvaluator(ori=ori, syn=syn, control=control, n_attacks=n, n_cols=spec["n_cols"],
                                         max_attempts=spec["max_attempts"], seed=seed).evaluate(mode=mode)
        out[f"singling_out_{mode}"] = figures(evaluator, started)
    started = time.perf_counter()
    np.random.seed(seed)
    evaluator = LinkabilityEvaluator(ori=ori, syn=syn, control=control, n_attacks=n, aux_cols=spec["aux"],
                                     n_neighbors=spec["n_neighbors"]).evaluate(n_jobs=spec["n_jobs"])
    out["linkability"] = figures(evaluator, started)
    started = time.perf_counter()
    np.random.seed(seed)
    evaluator = InferenceEvaluator(ori=ori, syn=syn, control=control, aux_cols=spec["qi"], secret=spec["secret"],
                                   n_attacks=n).evaluate(n_jobs=spec["n_jobs"])
    out["inference"] = figures(evaluator, started)
    with open(out_file, "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main()
