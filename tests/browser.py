"""Headless Chromium for the page tests, with every network request refused."""
import os
import shutil
import subprocess

import pytest


def chromium_path():
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found:
        return found
    if os.environ.get("GEOANON_REQUIRE_BROWSER") == "1":
        pytest.fail("chromium is required (GEOANON_REQUIRE_BROWSER=1) but not installed")
    pytest.skip("chromium not installed")


def headless(chromium, profile, *args):
    """Chromium headless with every network request refused."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           f"--user-data-dir={profile}", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=5000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def screenshot(chromium, tmp_path, page, shot, attempts=3, size="1200,800"):
    """A screenshot of ``page`` (``size`` pixels, "width,height"). Headless Chromium sometimes
    captures the page before Leaflet paints (a blank PNG of about 9 KB; the
    DOM holds every shape all the same), so a blank capture is taken again."""
    for attempt in range(attempts):
        done = headless(chromium, tmp_path / f"profile-shot-{attempt}", f"--window-size={size}",
                        f"--screenshot={shot}", page.as_uri())
        if done.returncode != 0 or (shot.exists() and shot.stat().st_size > 10_000):
            break
    return done


def console_messages(stderr: str) -> list:
    """The page's console messages in Chromium's log (run with
    ``--enable-logging=stderr``)."""
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def with_script(page, script: str, out):
    """Write ``page`` to ``out`` with ``script`` run once the page has loaded
    (its map built); the script reports by setting attributes on <body>."""
    text = page.read_text(encoding="utf-8")
    hook = ('<script>window.addEventListener("load", function () { setTimeout(function () {\n'
            f"{script}\n}}, 0); }});</script></body>")
    out.write_text(text.replace("</body>", hook, 1), encoding="utf-8")
    return out


def painted(shot, colors, opacity, background="#dddddd", tolerance=8):
    """Mask of the screenshot's pixels filled with one of ``colors`` (hex) at
    ``opacity`` over the map's ``background``."""
    import numpy as np
    from PIL import Image

    rgb = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    under = np.array(_rgb(background))
    mask = np.zeros(rgb.shape[:2], dtype=bool)
    for color in colors:
        want = opacity * np.array(_rgb(color)) + (1 - opacity) * under
        mask |= (np.abs(rgb - want) <= tolerance).all(axis=2)
    return mask


def _rgb(color: str) -> tuple:
    return tuple(int(color[i:i + 2], 16) for i in (1, 3, 5))
