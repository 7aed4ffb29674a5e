"""The internal link check proves itself, from any checkout.

A clone in a ``mktemp -d`` folder (mode 0700) with its ``.venv`` inside, run as root: in
that layout LinkChecker used to switch to ``nobody``, fail to list its own plugin folder,
check no anchors at all and exit 0. These tests build that layout for real: a private
folder (with a space in its name) holding a virtual environment with LinkChecker and its
requirements, and this package; a small site with a broken link and two missing anchors.
They run the command line as the current user and, when that is root, as ``nobody``.
Each problem planted in the site must be reported. Other tests break LinkChecker's plugin
loading and its anchor reports on purpose: the check must then say it did not run.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from mlsys_kb import cli
from mlsys_kb.linkcheck import internal

SRC = Path(__file__).resolve().parent.parent / "src"
NOBODY = 65534

# The site: what is planted in it, as (page, link as written, kind).
SITE = {
    "index.html": (
        '<!doctype html><html><head><meta charset="utf-8"><title>Home</title></head><body>'
        '<h1 id="top">Home</h1>\n'
        '<p><a href="other/#there">fine</a> <a href="#top">fine too</a></p>\n'
        '<p><a href="other/#not-there">missing anchor on another page</a></p>\n'
        '<p><a href="#not-here">missing anchor on this page</a></p>\n'
        '<p><a href="gone/">missing page</a></p>\n'
        "</body></html>\n"
    ),
    "other/index.html": (
        '<!doctype html><html><head><meta charset="utf-8"><title>Other</title></head><body>'
        '<h1 id="there">Other</h1><p><a href="../">home</a></p></body></html>\n'
    ),
}
PLANTED = {
    ("index.html", "other/#not-there", "anchor"),
    ("index.html", "#not-here", "anchor"),
    ("index.html", "gone/", "broken"),
}


def _requirements(name: str, seen: set[str]) -> None:
    """``name`` and every distribution it needs (without extras), by normalised name."""
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        return
    seen.add(key)
    for requirement in importlib.metadata.requires(name) or []:
        if "extra ==" in requirement:
            continue
        _requirements(re.match(r"[A-Za-z0-9._-]+", requirement).group(0), seen)


def _private_checkout(folder: Path, python: str = sys.executable) -> Path:
    """A virtual environment in ``folder``, made by ``python``, with LinkChecker, what it
    needs and this package copied into it, as ``make install`` leaves one in a clone;
    returns its Python."""
    venv = folder / ".venv"
    subprocess.run([python, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(venv)}))
    names: set[str] = set()
    for name in ("linkchecker", "pyyaml"):  # what `mlsys-kb check-links` imports
        _requirements(name, names)
    for name in names:
        distribution = importlib.metadata.distribution(name)
        for file in distribution.files or []:
            if file.parts[0] == ".." or "__pycache__" in file.parts:
                continue  # scripts in bin/, compiled caches
            source = Path(distribution.locate_file(file))
            target = purelib / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    shutil.copytree(SRC / "mlsys_kb", folder / "src" / "mlsys_kb")
    (purelib / "mlsys_kb.pth").write_text(str(folder / "src") + "\n")
    return venv / "bin" / "python"


def _site(folder: Path) -> Path:
    site = folder / "site"
    for name, text in SITE.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return site


@pytest.fixture
def private() -> Iterator[Path]:
    """A folder only its owner can enter, with a space in its path, outside pytest's own
    temporary folder (which another user could not enter either)."""
    top = Path(tempfile.mkdtemp(prefix="mlsys-kb private "))
    try:
        top.chmod(0o700)
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _check(python: Path, site: Path, user: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*user, str(python), "-m", "mlsys_kb.cli", "check-links", "--site", str(site)],
        capture_output=True,
        text=True,
        cwd=site.parent,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(site.parent)},
        timeout=300,
        check=False,
    )


def _found(result: subprocess.CompletedProcess[str], site: Path) -> set[tuple[str, str, str]]:
    found = set()
    for line in result.stdout.splitlines():
        # Paths are shown relative to the folder the command runs in: the checkout.
        match = re.match(rf"{re.escape(site.name)}/(\S+):\d+:\d+: (\S+): (.*)$", line)
        assert match, line
        kind = "anchor" if match.group(3).startswith("no anchor") else "broken"
        found.add((match.group(1), match.group(2), kind))
    return found


def test_a_checkout_only_its_owner_can_read_is_checked_whole(private: Path) -> None:
    python = _private_checkout(private)
    site = _site(private)
    result = _check(python, site, [])
    assert result.returncode == 1, result.stdout + result.stderr
    assert _found(result, site) == PLANTED, result.stderr
    assert "self-check passed" in result.stderr


def _nobody_can_run(python: str) -> bool:
    # `test -x` on the real file: running it through setpriv is not proof enough, as an
    # interpreter under /root (mode 0700) seemed to start there but failed on a later exec.
    command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    real = os.path.realpath(python)
    try:
        checks = [["test", "-x", real], [real, "-c", "import venv"]]
        return all(
            subprocess.run([*command, *check], capture_output=True, timeout=60).returncode == 0
            for check in checks
        )
    except (OSError, subprocess.SubprocessError):
        return False


def test_an_unprivileged_user_in_a_private_checkout_is_checked_whole(private: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("runs only as root, which can switch to an unprivileged user")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    candidates = [sys._base_executable, shutil.which(version, path="/usr/bin:/usr/local/bin")]
    python = next((c for c in candidates if c and _nobody_can_run(c)), None)
    if python is None:
        pytest.skip(f"no {version} here that an unprivileged user may run")
    # The unprivileged user's own private clone: a venv made from a Python it can run.
    venv_python = _private_checkout(private, python)
    site = _site(private)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(private)], check=True)
    user = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    result = _check(venv_python, site, user)
    assert result.returncode == 1, result.stdout + result.stderr
    assert _found(result, site) == PLANTED, result.stderr
    assert "self-check passed" in result.stderr


# --- the check refuses to pass when a part of it did not work ------------------------------


@pytest.fixture
def small_site(tmp_path: Path) -> Path:
    return _site(tmp_path)


def test_a_run_without_the_anchor_plugin_did_not_run(
    small_site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config_text = internal.config_text
    monkeypatch.setattr(
        internal,
        "config_text",
        lambda *args: config_text(*args).replace("[AnchorCheck]\n", ""),
    )
    assert cli.main(["check-links", "--site", str(small_site), "--format", "github"]) == 2
    out, err = capsys.readouterr()
    assert "did not load its AnchorCheck plugin" in err
    assert out.startswith("::error title=check-links did not run::")


def test_a_run_that_misses_the_canarys_problems_did_not_run(
    small_site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # LinkChecker as if its anchor reports had changed form: no anchor failure is read.
    failures = internal._failures

    def without_anchors(tree, root):  # type: ignore[no-untyped-def]
        bad, warned = failures(tree, root)
        return [f for f in bad if f.kind != "anchor"], warned

    monkeypatch.setattr(internal, "_failures", without_anchors)
    assert cli.main(["check-links", "--site", str(small_site)]) == 2
    err = capsys.readouterr().err
    assert "self-check failed" in err
    assert "a missing anchor on another page" in err
    assert "a missing anchor on the same page" in err
    assert "a link to a missing page" not in err


def test_a_run_that_reports_a_good_canary_link_did_not_run(
    small_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    page = internal._CANARY_TARGET
    monkeypatch.setattr(internal, "_CANARY_TARGET", page.replace('id="there"', 'id="gone"'))
    with pytest.raises(internal.CheckError, match="reported a good link as anchor"):
        internal.check_site(small_site)


def test_every_process_has_its_own_canary(small_site: Path) -> None:
    # Two processes, each proving itself; the site's own problems come out once.
    report = internal.check_site(small_site, jobs=2)
    assert {(f.page, f.link, f.kind) for f in report.failures} == PLANTED
    assert report.proven == 2
