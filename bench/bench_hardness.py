"""The hardness reductions as benchmark instances (issue 6): every solver on tables whose optimum is known.

    python bench/bench_hardness.py          # about a minute; --quick prints without touching RESULTS.md

Instances from ``geoanon.tables.hardness`` (seeded): Liang-Yuan Theorem 3
((n/2)-anonymity from a minimum bisection of a random graph), Theorem 6
(t-closeness, t = 0.2, from 3-dimensional matching yes-instances, optimum
3n(m - 1)), Lemma 1 applied to Theorem 3 (t-closeness with the same optimum),
and Blocki-Williams' binary 3-anonymity from graphs made of triangles and
4-stars (optimum 3|E|). On each: the stated optimum, what ``method="auto"``
proves, and the costs of the lattice heuristic and of Theorem 10 (k only),
as ratios to the optimum.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import networkx as nx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, replace_section, today  # noqa: E402


def instances(quick: bool):
    from geoanon.tables import hardness as h

    out = []
    for seed, (nodes, edges) in enumerate([(8, 12), (10, 18)][: 1 if quick else 2]):
        graph = nx.gnm_random_graph(nodes, edges, seed=seed)
        half = h.half_anonymity_from_bisection(graph)
        out.append((f"Theorem 3, G({nodes}, {edges})", half))
        out.append((f"Lemma 1 on Theorem 3, G({nodes}, {edges})",
                    h.t_closeness_from_k_anonymity(half.table, half.qi, half.k, optimum=half.optimum)))
    for n, extra in [(3, 2), (4, 4), (5, 5), (6, 4)][: 1 if quick else 4]:
        triples = h.three_dm_yes_instance(n, extra, seed=n)
        out.append((f"Theorem 6, 3DM n={n}, m={n + extra}, t=0.2", h.t_closeness_from_3dm(triples, n, t=0.2)))
    for triangles, stars in [(2, 1), (3, 2)][: 1 if quick else 2]:
        graph = h.triangles_and_stars_graph(triangles, stars, 3 * triangles + 4 * stars, seed=triangles)
        out.append((f"Blocki-Williams, {triangles} triangles + {stars} 4-stars",
                    h.binary_3_anonymity_from_graph(graph)))
    return out


def measure(name, hard) -> dict:
    import geoanon as ga

    options = dict(k=hard.k, l=hard.l, t=hard.t, sensitive=hard.sensitive, ground=hard.ground, order=hard.order)
    row = {"instance": name, "rows": len(hard.table), "m": len(hard.qi), "optimum": hard.optimum}
    suppress = ga.suppress                                  # imported before the clock starts
    for method in ("auto", "lattice") + (("approx",) if hard.sensitive is None else ()):
        started = time.perf_counter()
        report = suppress(hard.table, hard.qi, method=method, time_limit=60, **options).report
        row[method] = {"cost": report["cost"], "optimal": report["optimal"], "solver": report["solver"],
                       "seconds": time.perf_counter() - started}
    return row


def table(rows) -> list[str]:
    out = ["| instance | rows | QIs | stated optimum | auto (solver) | proven | lattice / OPT | Theorem 10 / OPT |",
           "|---|---:|---:|---:|---|---|---:|---:|"]
    for r in rows:
        opt = r["optimum"]
        auto, lattice = r["auto"], r["lattice"]
        approx = f"{r['approx']['cost'] / opt:.2f}" if "approx" in r and opt else ""
        out.append(f"| {r['instance']} | {r['rows']} | {r['m']} | {opt} | {auto['cost']} ({auto['solver']}, "
                   f"{auto['seconds']:.1f} s) | {'yes' if auto['optimal'] else 'no'} | "
                   f"{lattice['cost'] / opt if opt else float('nan'):.2f} | {approx} |")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--results", default=str(HERE / "RESULTS.md"))
    args = parser.parse_args()
    rows = [measure(name, hard) for name, hard in instances(args.quick)]
    lines = table(rows)
    reached = sum(r["auto"]["optimal"] and r["auto"]["cost"] == r["optimum"] for r in rows)
    wrong = [r["instance"] for r in rows if r["auto"]["cost"] < r["optimum"]
             or (r["auto"]["optimal"] and r["auto"]["cost"] != r["optimum"])]
    lines += ["", f"The optimal solvers reach the stated optimum, proven, on {reached} of {len(rows)} instances"
              + (f"; disagreements: {', '.join(wrong)}" if wrong else "; no solver ever went below it.")]
    print("\n".join(lines))
    if not args.quick:
        replace_section(Path(args.results), "hardness", [
            "## Hardness reductions as instances (`python bench/bench_hardness.py`)", "",
            f"Run on {today()}, {machine()}, geoanon at commit {code_state()}.", "", *lines])


if __name__ == "__main__":
    main()
