"""Cut uv's pin and hashes out of the lock into the small file that pip installs uv from.

    python scripts/lock_bootstrap.py locks/requirements.txt locks/uv.txt

`make lock` runs it, so the two files cannot name different versions of uv.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# A requirement line and its indented --hash and "# via" lines, up to the next requirement.
_BLOCK = re.compile(r"^uv==\S+.*?(?=^\S|\Z)", re.MULTILINE | re.DOTALL)


def main(lock: Path, out: Path) -> int:
    match = _BLOCK.search(lock.read_text(encoding="utf-8"))
    if match is None:
        print(f"{lock}: no uv== requirement; add uv to the installers extra", file=sys.stderr)
        return 1
    header = f"# uv for `make install`, cut from {lock.as_posix()} by `make lock`: do not edit.\n"
    out.write_text(header + match.group(0), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
