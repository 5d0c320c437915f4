"""One table of options: every keyword of every job function, on both
engines, is a row of spec.options.OPTIONS (or one of the few structural
arguments every job has), and every row a function takes is a keyword of it;
the command line's flags and the job files' keys come from the same rows."""
import inspect

import pytest

from geoanon.options.table import OPTIONS
from geoanon.options.release import options_of

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
    """A function's named keywords are its rows; one that takes ``**options``
    (and the groups of :mod:`geoanon.options.groups`) documents every row it
    takes through them."""
    from geoanon.options.groups import GROUPS

    function = _function(engine, FUNCTIONS[command])
    signature = inspect.signature(function).parameters
    rows = set(options_of(command, engine, api=True))
    if any(p.kind is p.VAR_KEYWORD for p in signature.values()):
        named = {name for name, p in signature.items() if p.kind is not p.VAR_KEYWORD} - STRUCTURAL
        assert named <= set(GROUPS), f"keywords neither structural nor a group: {sorted(named - set(GROUPS))}"
        undocumented = {name for name in rows if name not in function.__doc__}
        assert not undocumented and "search" in function.__doc__, f"rows not documented: {sorted(undocumented)}"
        return
    parameters = set(signature) - STRUCTURAL
    assert parameters - rows == set(), f"keywords without a row: {sorted(parameters - rows)}"
    assert rows - parameters == set(), f"rows the function does not take: {sorted(rows - parameters)}"


def test_every_field_of_a_group_is_a_row_with_its_default():
    from dataclasses import fields

    from geoanon.options.groups import GROUPS

    rows = options_of("anonymize", "memory", api=True)
    for group in GROUPS.values():
        for f in fields(group):
            assert f.name in rows and f.default == rows[f.name].default, (group.__name__, f.name)


@pytest.mark.parametrize("engine", ["memory", "dask"])
def test_a_keyword_without_a_row_is_a_type_error(engine):
    from geoanon.options import release_spec

    with pytest.raises(TypeError, match="anonymize\\(\\) got an unexpected keyword argument 'lat'"):
        release_spec("anonymize", engine, location=("lat", "lon"), k=2, lat="lat")


def test_the_groups_give_the_keywords_they_hold():
    from geoanon.errors import ParameterError
    from geoanon.options import Budgets, Search, release_spec

    grouped = release_spec("anonymize", location=("lat", "lon"), k=2, search=Search(method="frontier", n_jobs=2),
                           budgets=Budgets(max_withheld=0.05))
    flat = release_spec("anonymize", location=("lat", "lon"), k=2, method="frontier", n_jobs=2, max_withheld=0.05)
    assert grouped == flat
    with pytest.raises(ParameterError, match="give method in search= or as a keyword, not both"):
        release_spec("anonymize", location=("lat", "lon"), k=2, search=Search(), method="joint")
    with pytest.raises(ParameterError, match="search must be a geoanon.Search"):
        release_spec("anonymize", location=("lat", "lon"), k=2, search={"method": "joint"})


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


def test_a_flag_on_by_default_is_turned_off_by_its_no_form():
    """``gain_ratio`` is on unless ``--no-gain-ratio``; as the API's
    default, and messages name the flag, not its ``--no-`` form."""
    from geoanon.cli import build_parser
    from geoanon.options.table import flag_values

    parser = build_parser()
    base = ["anonymize", "in.csv", "--lat", "lat", "--lon", "lon", "-k", "5", "-o", "out.csv"]
    assert flag_values(parser.parse_args(base), "anonymize")["gain_ratio"] is True
    assert flag_values(parser.parse_args(base + ["--no-gain-ratio"]), "anonymize")["gain_ratio"] is False
    assert flag_values(parser.parse_args(base + ["--gain-ratio"]), "anonymize")["gain_ratio"] is True
    assert options_of("anonymize", "memory", api=True)["gain_ratio"].default is True
    assert parser.parse_args(base).flags["gain_ratio"] == "--gain-ratio"
