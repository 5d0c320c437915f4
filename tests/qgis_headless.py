"""qgis_process headless, with the geoanon provider (qgis/geoanon_qgis) installed as docs/qgis.md says
(QGIS_PLUGINPATH, ``plugins enable``) in a profile of its own, running this Python's geoanon: for the provider's
tests and bench/bench_qgis.py."""
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def qgis_process_path():
    """qgis_process, or Debian's qgis_process.bin beside it (Debian 12's wrapper passes the QGIS GUI's
    --noversioncheck, which qgis_process 3.22 refuses: qgis/QGIS#57683); None where QGIS is not installed."""
    found = shutil.which("qgis_process")
    if found and Path(found + ".bin").exists():
        return found + ".bin"
    return found


def geoanon_command() -> str:
    """This Python's geoanon as GEOANON_EXECUTABLE (the provider drops PYTHONPATH: it is passed through env)."""
    words = [sys.executable, "-m", "geoanon.cli"]
    path = os.environ.get("PYTHONPATH")
    return shlex.join(["env", f"PYTHONPATH={path}", *words] if path else words)


def outside_virtual_environments(env) -> dict:
    """``env`` without an activated virtual environment: QGIS's embedded Python finds its home from the first
    ``python3`` on PATH, and one of a venv built on another Python leaves it without its own modules
    (``No module named 'qgis'``), as docs/qgis.md says."""
    env = dict(env)
    venv = env.pop("VIRTUAL_ENV", None)
    if sys.prefix != sys.base_prefix:
        venv = venv or sys.prefix
    if venv:
        bins = {str(Path(venv, "bin")), str(Path(venv, "Scripts"))}
        env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p.rstrip("/") not in bins)
    return env


class QgisProcess:
    """``QgisProcess(program, home)(*args)`` -> (exit code, stdout, stderr): qgis_process offscreen, its profile,
    cache and temporary files in ``home`` (``temp``: its temporary folder), the plugin enabled."""

    def __init__(self, program, home: Path):
        for folder in ("data", "cache", "runtime", "temp"):
            (home / folder).mkdir(mode=0o700, parents=True, exist_ok=True)
        self.program, self.temp = program, home / "temp"
        self.env = {**outside_virtual_environments(os.environ), "QT_QPA_PLATFORM": "offscreen", "XDG_DATA_HOME": str(home / "data"),
                    "XDG_CACHE_HOME": str(home / "cache"), "XDG_RUNTIME_DIR": str(home / "runtime"),
                    "TMPDIR": str(self.temp), "QGIS_PLUGINPATH": str(ROOT / "qgis"),
                    "GEOANON_EXECUTABLE": geoanon_command()}
        code, out, err = self("plugins", "enable", "geoanon_qgis")
        if code != 0:
            raise RuntimeError(f"qgis_process plugins enable geoanon_qgis failed: {out}{err}")

    def __call__(self, *args):
        done = subprocess.run([self.program, *map(str, args)], env=self.env, capture_output=True, text=True,
                              timeout=600)
        return done.returncode, done.stdout, done.stderr
