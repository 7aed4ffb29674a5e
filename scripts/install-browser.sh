#!/usr/bin/env bash
# Install Debian's Chromium and ChromeDriver for the browser tests, where we are allowed to.
# Playwright drives /usr/bin/chromium; no browser is ever downloaded from elsewhere.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
    exit 0
fi
echo "Chromium not found at /usr/bin/chromium; browser tests will skip (fail under CI=true)." >&2
echo "Install it with: sudo apt-get install chromium chromium-driver" >&2
