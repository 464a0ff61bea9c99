"""Take the screenshot of the transport panel the docs show (docs/images/panel.png).

The demo's trace replayed live at 60 fps with its panel open in headless Chromium: played at
1x, then 2x (the Up key), then 1/2x, then paused and stepped, so the plot shows requested and
realized speed and the quanta per frame moving. Needs the panel extra, Playwright for Python
and Chromium (``apt-get install chromium``)::

    python scripts/panel_screenshot.py [docs/images/panel.png]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.panels import LiveRun  # noqa: E402


def main(path: str) -> None:
    with LiveRun(replay=True) as run, sync_playwright() as playwright:
        run.tree["sim.paused"] = True     # held at the start until the page is up
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                             headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 980, "height": 720},
                                    device_scale_factor=1)
            page.goto(run.panel.url)
            page.wait_for_function("() => window.cvcclockPanel && "
                                   "window.cvcclockPanel.updates > 3")
            page.keyboard.press(" ")
            time.sleep(1.0)
            page.keyboard.press("ArrowUp")
            time.sleep(1.2)
            page.keyboard.press("ArrowDown")
            page.keyboard.press("ArrowDown")
            time.sleep(1.5)
            page.keyboard.press(" ")
            time.sleep(0.5)
            page.keyboard.press(".")
            time.sleep(0.5)
            page.screenshot(path=path, full_page=True)
        finally:
            browser.close()
    print(f"wrote {path}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/images/panel.png")
