"""Debian's headless Chromium, as the browser tests, screenshots and benchmarks start it.

The flags keep it from reaching for the network (this machine has none but the package
registries) and let it run as root in a container.
"""

from __future__ import annotations

import os

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
