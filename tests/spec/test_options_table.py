"""One table of options: every keyword of every job function, on both
engines, is a row of spec.options.OPTIONS (or one of the few structural
arguments every job has), and every row a function takes is a keyword of it;
the command line's flags and the job files' keys come from the same rows."""
import inspect

import pytest

from geoanon.spec.options import OPTIONS
from geoanon.spec.release import options_of

FUNCTIONS = {"points": "generalize_points", "zip": "generalize_regions", "labels": "generalize_labels",
             "suppress": "suppress", "anonymize": "anonymize"}
# what a job function takes besides its options: the data, where the dask engine writes, the roles as one object
# (or the location as one value, which the front ends assemble from several rows: lat, lon, zip, regions, ...),
# the model as one object
STRUCTURAL = {"df", "source", "output", "columns", "location", "model"}


def _function(engine, name):
    if engine == "memory":
        import geoanon.pipeline as module
    else:
        pytest.importorskip("dask")
        import geoanon.cluster as module
    return getattr(module, name)


@pytest.mark.parametrize("engine", ["memory", "dask"])
@pytest.mark.parametrize("command", sorted(FUNCTIONS))
def test_every_keyword_of_a_job_function_is_a_row_of_the_table(command, engine):
    parameters = set(inspect.signature(_function(engine, FUNCTIONS[command])).parameters) - STRUCTURAL
    rows = set(options_of(command, engine, api=True))
    assert parameters - rows == set(), f"keywords without a row: {sorted(parameters - rows)}"
    assert rows - parameters == set(), f"rows the function does not take: {sorted(rows - parameters)}"


def test_every_row_has_a_front_end_and_a_help():
    for row in OPTIONS:
        assert row.help and (row.flag or row.key or row.api), row.name


def test_flags_and_keys_are_unique_per_command():
    for command in {c for row in OPTIONS for c in row.commands}:
        rows = [row for row in OPTIONS if command in row.commands]
        flags = [f for row in rows for f in (row.flag, *row.aliases) if f]
        keys = [row.key for row in rows if row.key]
        assert len(flags) == len(set(flags)), command
        assert len(keys) == len(set(keys)), command


def test_the_parser_is_the_table():
    from geoanon.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    for name, sub in commands.items():
        flags = {s for a in sub._actions for s in a.option_strings}
        for row in OPTIONS:
            if name in row.commands and row.flag:
                assert row.flag in flags, (name, row.flag)
