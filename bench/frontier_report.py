"""bench_frontier.py's results in RESULTS.md: one section for the tuning
tables located by points, one for the held-out ones and one for the
ZIP-coded tables of both kinds (each table in one section), each replaced
only when all its tables' rows were measured (a ``--tables tuning`` run
leaves the others as they were)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from bench_frontier import KS, PEERS, SPEED_TABLES, SPEED_TARGET, TARGET, WIDTH_TARGET, ZIP_CODED, checks
from common import code_state, machine, replace_section, today, versions
from frontier_tables import HELD_OUT, TABLES, TUNING

FIXED = "fixed in code before any release of them was measured and choose no constant."
OWN = "The ZIP-coded ones have their own section below."
SECTIONS = {    # --tables: its section, its tables, what the heading calls them, what they may choose
    "tuning": ("frontier-tuning", tuple(n for n in TUNING if n not in ZIP_CODED), "tuning",
               f"These tables choose constants. {OWN}"),
    "held-out": ("frontier-held-out", tuple(n for n in HELD_OUT if n not in ZIP_CODED), "held-out",
                 f"These tables were {FIXED} {OWN}"),
    "zip": ("frontier-zip", ZIP_CODED, "ZIP-coded", f"The held-out ones were {FIXED}")}
LABELS = {"mondrian": "bench's weighted Mondrian (w 1-256)", "anonypyx": "anonypyx Mondrian",
          "lighthouse": "Lighthouse Core Mondrian, default", "lighthouse-age0.7": "Lighthouse, breakout age 0.7",
          "lighthouse-age0.5": "Lighthouse, breakout age 0.5", "lighthouse-age0.3": "Lighthouse, breakout age 0.3",
          "lighthouse-original": "Lighthouse Original Mondrian"}


def write_results(rows, path: Path) -> None:
    """Each section whose tables were all measured, into ``path``; the checks of every table measured, printed
    (a ``--tables tuning`` run measures the ZIP-coded tuning tables without their section's held-out ones)."""
    by = {(r["table"], r["k"], r["method"]): r for r in rows if "failed" not in r}
    failed = [r for r in rows if "failed" in r]
    for kind, (section, names, *_) in SECTIONS.items():
        measured = [name for name in names if any((name, k, "geoanon") in by for k in KS)]
        if measured == list(names):
            replace_section(path, section, _section(kind, by, list(names), failed))
        if measured:
            print("\n".join(["", f"{kind} tables{'' if measured == list(names) else ' (not written)'}:",
                              *_summary(by, measured)[2:]]))
    if any(r["method"] == "speed" for r in by.values()):
        replace_section(path, "frontier-speed", _speed(by))


def _section(kind: str, by: dict, names: list, failed: list) -> list[str]:
    import bench_frontier

    _, _, called, chooses = SECTIONS[kind]
    lines = [f"## The frontier against real peers, {called} tables (`python bench/bench_frontier.py --tables "
             f"{kind}`)", "", f"Run on {today()}, {machine()}, {_commits(by, names)}; "
             f"{versions('anonypyx', 'lighthouse')}, each in its own virtual environment. {chooses}",
             "", *(f"- `{name}` ({by[next(key for key in by if key[0] == name)]['n']:,} rows"
                   f"{', held out' if kind == 'zip' and TABLES[name].held_out else ''}): {TABLES[name].about}; "
                   f"other quasi-identifiers {', '.join(TABLES[name].others)}." for name in names), "",
             " ".join(" ".join(p.split()) for p in bench_frontier.__doc__.split("\n\n")[3:6]), "",
             *_summary(by, names), ""]
    for name in names:
        for k in KS:
            c = checks(by, name, k)
            if c is not None:
                lines += _case(name, k, c)
    mine = [r for r in failed if r["job"][0] in names]
    if mine:
        lines += ["Failed: " + "; ".join(f"{' '.join(r['job'])}: {r['failed']}" for r in mine) + ".", ""]
    return lines


def _commits(by: dict, names: list) -> str:
    """The commits geoanon's rows were measured at (``--resume`` keeps rows of earlier commits), with their rows."""
    rows: dict = {}
    for (name, k, method), r in by.items():
        if name in names and method.startswith("geoanon"):
            rows.setdefault(r.get("commit", "an earlier commit"), {}).setdefault(f"{method} {name}", []).append(k)
    def listed(jobs: dict) -> str:
        return ", ".join(job + " k = " + "/".join(map(str, sorted(ks))) for job, ks in sorted(jobs.items()))

    return "geoanon's rows at " + "; ".join(f"{commit} ({listed(jobs)})" if len(rows) > 1 else commit
                                            for commit, jobs in sorted(rows.items()))


def _summary(by: dict, names: list) -> list[str]:
    """Per table and k: the worst ratio per peer, whether any peer release dominates the default, the 3x checks."""
    lines = [f"Worst ratio per peer (geoanon's best release no wider at median and p90 / the peer's other NCP; "
             f"target <= {TARGET:.2f}x; N ∞: N releases than which no geoanon release is no wider), whether a peer release dominates the "
             f"default, and the default's widths (target: median <= {WIDTH_TARGET:g}x the location alone's, "
             f"p90 <= {WIDTH_TARGET:g}x its median):", "",
             "| table | k | " + " | ".join(LABELS[p] for p in PEERS) + " | dominated | default median / p90 / max km "
             "| alone median km | median / alone | p90 / median |", "|---|---:|" + "---:|" * len(PEERS) + "---|---|---:|---:|---:|"]
    for name in names:
        for k in KS:
            c = checks(by, name, k)
            if c is None:
                continue
            d, cells = c["default"], []
            for p in PEERS:
                ratios = [r for _, _, r in c["peers"].get(p, {}).get("compared", [])]
                cells.append(_worst(ratios))
            dominated = [f"{p} {_name(q['setting'])}" for p, v in c["peers"].items() for q in v["dominating"]]
            mean = f" (mean {c['alone_mean_ratio']:.2f}x)" if TABLES[name].zip and c["alone_mean_ratio"] else ""
            lines.append(f"| {name} | {k} | " + " | ".join(cells) + f" | {', '.join(dominated) or 'no'} | "
                         f"{_km(d['median_km'])} / {_km(d['p90_km'])} / {_km(d['max_km'])} | "
                         f"{_km(c['alone']['median_km'])} | {_x(c['alone_ratio'], c['alone_ratio'] > WIDTH_TARGET)}"
                         f"{mean} | {_x(c['tail_ratio'], c['tail_ratio'] > WIDTH_TARGET)} |")
    return lines


def _worst(ratios: list) -> str:
    """The worst finite ratio, and how many releases no geoanon release is no wider than (∞)."""
    if not ratios:
        return "-"
    finite = [r for r in ratios if np.isfinite(r)]
    none = len(ratios) - len(finite)
    return ", ".join(([_x(max(finite), bold=max(finite) > TARGET)] if finite else [])
                     + ([f"**{none} ∞**"] if none else []))


def _case(name: str, k: int, c: dict) -> list[str]:
    d, a = c["default"], c["alone"]
    lines = [f"### {name}, k = {k}", "",
             f"geoanon's default (location_precision {d['setting']:g}): {_figures(d)}; own report's other NCP "
             f"{d['own_ncp']:.4f}. The location alone: median {_km(a['median_km'])} km, p90 {_km(a['p90_km'])} km, "
             f"max {_km(a['max_km'])} km ({a['withheld']} records without a box).", "",
             "| peer release | median km | p90 km | max km | other NCP | suppressed | geoanon's best no wider: setting "
             "| median km | p90 km | other NCP | ratio |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for method, v in c["peers"].items():
        for p, best, ratio in v["compared"]:
            ours = "| - | - | - | - |" if best is None else (
                f"| {best['setting']:g}{' ' + best['variant'] if best.get('variant') else ''} | {_km(best['median_km'])} | {_km(best['p90_km'])} | {best['other_ncp']:.4f} |")
            label = f"{method} w={p['setting']:g}" if method == "mondrian" else method
            lines.append(f"| {label} | {_km(p['median_km'])} | {_km(p['p90_km'])} | {_km(p['max_km'])} | "
                         f"{p['other_ncp']:.4f} | {p['suppressed']:,} {ours} {_x(ratio)} |")
    grid = [p for p in c["points"] if round(p["setting"] * 20, 6).is_integer()]
    counted = Counter(p["variant"] for p in c["variants"])
    besides = "".join(f", and {n} {variant}" for variant, n in sorted(counted.items()))
    lines += ["", f"geoanon's releases at every 0.05 of the setting ({len(c['points'])} measured{besides}; setting: median / p90 "
                  "/ max km / other NCP): " + "; ".join(
                      f"{p['setting']:g}: {_km(p['median_km'])} / {_km(p['p90_km'])} / {_km(p['max_km'])} / "
                      f"{p['other_ncp']:.3f}" for p in grid) + ".", ""]
    return lines


def _figures(p: dict) -> str:
    return (f"median {_km(p['median_km'])} km, p90 {_km(p['p90_km'])} km, max {_km(p['max_km'])} km "
            f"({p['withheld'] + p['suppressed']} records without a box), other NCP {p['other_ncp']:.4f}")


def _km(v) -> str:
    if v is None or not np.isfinite(v):
        return "∞"
    return f"{v:,.1f}" if v < 100 else f"{v:,.0f}"


def _x(ratio: float, bold: bool = False) -> str:
    text = "∞" if not np.isfinite(ratio) else f"{ratio:.2f}x"
    return f"**{text}**" if bold else text


def _name(setting) -> str:
    return setting if isinstance(setting, str) else f"w={setting:g}"


def _speed(by: dict) -> list[str]:
    rows = [(name, by[(name, 10, "speed")]) for name in SPEED_TABLES if (name, 10, "speed") in by]
    lines = ["## Speed of `explore` (`python bench/bench_frontier.py --speed`)", "",
             f"Run on {today()}, {machine()}, geoanon at commit {code_state()}. One release (`ga.anonymize`, k = 10), "
             "the same without first cuts (`FIRST_CUT_ROWS` 0) and on 2 processes (`n_jobs=2`), and `ga.explore`'s 8 "
             "default settings, in one process and on 2, best of five each; the command (`geoanon anonymize ... "
             "--html-report R --jobs 2`, a fresh process each, best of 3) and the same with `--explore`.", "",
             "| table | one release s | without first cuts s | on 2 processes s | explore s | explore, 2 processes s "
             "| ratio to one | command s | `--explore` s | ratio |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, r in rows:
        lines.append(f"| {name} | {r['one_s']:.2f} | {r['plain_s']:.2f} | {r['one2_s']:.2f} | {r['explore_s']:.2f} | "
                     f"{r['explore2_s']:.2f} | {r['explore2_s'] / r['one_s']:.1f}x | {r['command_one_s']:.2f} | "
                     f"{r['command_explore_s']:.2f} | {r['command_explore_s'] / r['command_one_s']:.1f}x |")
    ratios = [r["command_explore_s"] / r["command_one_s"] for _, r in rows]
    return lines + ["", f"`--explore` with 8 settings: {min(ratios):.1f}-{max(ratios):.1f}x one release (target <= "
                        f"{SPEED_TARGET:.0f}x: {'met' if max(ratios) <= SPEED_TARGET else 'MISSED'})."]
