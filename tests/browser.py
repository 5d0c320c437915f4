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
