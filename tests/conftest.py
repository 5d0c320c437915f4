import os

from hypothesis import HealthCheck, settings

# Reproducible by default (CI runs the same examples every time); set
# HYPOTHESIS_PROFILE=explore to search new examples locally.
settings.register_profile("default", derandomize=True, deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=2000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


import pytest


@pytest.fixture
def cli(capsys):
    """Run the command line in-process: ``cli(*args)`` gives (exit code, stdout,
    stderr); argparse's usage errors exit through SystemExit."""
    from geoanon.cli import main

    def run(*argv):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return run
