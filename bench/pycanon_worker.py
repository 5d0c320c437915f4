"""Run pycanon's k-anonymity, l-diversity and t-closeness on one table, in
pycanon's own virtual environment (it pins older numpy, pandas and scipy).

    python pycanon_worker.py TABLE.csv SPEC.json OUT.jsonl

SPEC: {"qi": [...], "sensitive": [...], "calls": "levels" or "models"}:
k, distinct l and t (the default), or entropy l, recursive (c, l), basic and
enhanced beta and delta (bench_models.py). The CSV is read with every
quasi-identifier and string sensitive column as text. Each figure is appended
to OUT as one JSON line as soon as it is known (so a run stopped by the
caller's time limit still leaves what it finished): {"measure", "sensitive",
"value", "seconds"}, seconds being the wall time of that one pycanon call on
the table already in memory. One warm-up call of each function on the first
1,000 rows comes first and is not recorded.
"""
import json
import sys
import time

import numpy as np
import pandas as pd
from pycanon import anonymity


def plain(value):
    """A JSON value: numpy scalars as Python numbers, NaN as None, tuples as lists."""
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    value = value.item() if isinstance(value, np.generic) else value
    return None if isinstance(value, float) and value != value else value


def main() -> None:
    table, spec_file, out_file = sys.argv[1:4]
    with open(spec_file) as fh:
        spec = json.load(fh)
    qi, sensitive = spec["qi"], spec["sensitive"]
    text = {c: str for c in qi}
    text.update({c: str for c in sensitive if spec.get("types", {}).get(c) == "string"})
    data = pd.read_csv(table, dtype=text, keep_default_na=False)
    if spec.get("calls", "levels") == "models":
        calls = [(name, s, lambda d, s=s, f=f: f(d, qi, [s])) for s in sensitive for name, f in (
            ("l_entropy", anonymity.entropy_l_diversity), ("recursive", anonymity.recursive_c_l_diversity),
            ("beta", anonymity.basic_beta_likeness), ("beta_enhanced", anonymity.enhanced_beta_likeness),
            ("delta", anonymity.delta_disclosure))]
    else:
        calls = [("k", None, lambda d: anonymity.k_anonymity(d, qi))]
        for s in sensitive:
            calls.append(("l_distinct", s, lambda d, s=s: anonymity.l_diversity(d, qi, [s])))
            calls.append(("t", s, lambda d, s=s: anonymity.t_closeness(d, qi, [s])))
    head = data.head(1000)
    for _, _, call in calls:
        call(head)
    with open(out_file, "a") as out:
        for measure, s, call in calls:
            started = time.perf_counter()
            value = call(data)
            seconds = time.perf_counter() - started
            out.write(json.dumps({"measure": measure, "sensitive": s, "value": plain(value),
                                  "seconds": seconds}) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
