"""Take full-page screenshots of a built site in headless Chromium, to look at.

.venv/bin/python scripts/screenshot.py site index.html topics/gnn/ --out test-artifacts
"""

from __future__ import annotations

import argparse
import functools
import http.server
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from mlsys_kb.chromium import ARGS, CHROMIUM


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("site", type=Path)
    parser.add_argument("pages", nargs="+")
    parser.add_argument("--out", type=Path, default=Path("test-artifacts"))
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--dark", action="store_true")
    args = parser.parse_args()
    handler = functools.partial(
        http.server.SimpleHTTPRequestHandler, directory=str(args.site.resolve())
    )
    handler.log_message = lambda *a: None  # type: ignore[method-assign]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(
            viewport={"width": args.width, "height": 900},
            color_scheme="dark" if args.dark else "light",
        )
        for name in args.pages:
            page.goto(base + name)
            page.wait_for_load_state("networkidle")
            target = args.out / (name.strip("/").replace("/", "_").replace("#", "_") or "index")
            page.screenshot(path=f"{target}-{args.width}.png", full_page=True)
            print(f"{target}-{args.width}.png")
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
