"""The lock (locks/requirements.txt) against pyproject.toml and the installed environment.

`make lock` writes the lock from pyproject.toml; `make install` installs exactly it. These
tests fail when the two files disagree (a pin changed or added without `make lock`), when
the lock holds something only this machine can install (a local path or index), and when
.venv does not hold exactly the lock.
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from .conftest import ROOT

LOCK = ROOT / "locks" / "requirements.txt"
UV_LOCK = ROOT / "locks" / "uv.txt"
PROJECT = "mlsys-kb"


def locked(text: str) -> list[tuple[Requirement, list[str]]]:
    """The lock's requirements with their hashes (continuation lines joined)."""
    logical = re.sub(r"\s*\\\n\s*", " ", text)
    entries = []
    for line in logical.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        hashes = re.findall(r"--hash=(\S+)", line)
        spec = re.sub(r"\s*--hash=\S+", "", line).strip()
        entries.append((Requirement(spec), hashes))
    return entries


def direct(pyproject: str) -> list[Requirement]:
    project = tomllib.loads(pyproject)["project"]
    requirements = [Requirement(spec) for spec in project["dependencies"]]
    for specs in project.get("optional-dependencies", {}).values():
        requirements += [Requirement(spec) for spec in specs]
    return requirements


def disagreements(pyproject: str, lock: str) -> list[str]:
    """What differs between pyproject.toml's pins and the lock, as messages."""
    versions: dict[str, set[str]] = {}
    for requirement, _hashes in locked(lock):
        pins = [spec.version for spec in requirement.specifier if spec.operator == "=="]
        versions.setdefault(canonicalize_name(requirement.name), set()).update(pins)
    problems = []
    for requirement in direct(pyproject):
        name = canonicalize_name(requirement.name)
        pins = [spec.version for spec in requirement.specifier if spec.operator == "=="]
        if len(pins) != 1 or len(requirement.specifier) != 1:
            problems.append(f"{requirement}: pin it exactly (name==version) in pyproject.toml")
        elif name not in versions:
            problems.append(f"{requirement}: not in the lock; run `make lock`")
        elif versions[name] != {pins[0]}:
            found = ", ".join(sorted(versions[name]))
            problems.append(f"{requirement}: the lock has {found}; run `make lock`")
    return problems


def test_pyproject_and_the_lock_agree():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert disagreements(pyproject, LOCK.read_text(encoding="utf-8")) == []


def test_a_changed_missing_or_loose_pin_is_a_disagreement():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    lock = LOCK.read_text(encoding="utf-8")
    assert '"mkdocs==1.6.1"' in pyproject
    bumped = pyproject.replace('"mkdocs==1.6.1"', '"mkdocs==1.6.0"')
    assert disagreements(bumped, lock) == ["mkdocs==1.6.0: the lock has 1.6.1; run `make lock`"]
    added = pyproject.replace('"pyyaml==6.0.3",', '"pyyaml==6.0.3", "tomli-w==1.2.0",')
    assert disagreements(added, lock) == ["tomli-w==1.2.0: not in the lock; run `make lock`"]
    loose = pyproject.replace('"pyyaml==6.0.3"', '"pyyaml>=6"')
    assert disagreements(loose, lock) == [
        "pyyaml>=6: pin it exactly (name==version) in pyproject.toml"
    ]


def test_the_lock_installs_from_pypi_alone_and_every_file_is_hashed():
    text = LOCK.read_text(encoding="utf-8")
    # No local index, wheel folder or file path: the lock must work on a fresh machine.
    for needle in ("file:", "/opt/", "--find-links", "--index-url", "--extra-index-url", "-e "):
        assert needle not in text, needle
    entries = locked(text)
    assert len(entries) > 40
    for requirement, hashes in entries:
        assert requirement.url is None, requirement
        assert [spec.operator for spec in requirement.specifier] == ["=="], requirement
        assert hashes and all(h.startswith("sha256:") for h in hashes), requirement


def test_the_bootstrap_file_is_the_lock_s_uv():
    uv = [entry for entry in locked(LOCK.read_text(encoding="utf-8")) if entry[0].name == "uv"]
    assert locked(UV_LOCK.read_text(encoding="utf-8")) == uv and len(uv) == 1


def _requires(name: str, extras: set[str]) -> list[Requirement]:
    environment = default_environment()
    wanted = []
    for spec in metadata.requires(name) or []:
        requirement = Requirement(spec)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({**environment, "extra": e}) for e in extras):
            wanted.append(requirement)
    return wanted


def test_the_environment_holds_exactly_the_lock():
    """Every distribution the project needs here is installed at the lock's version, the
    lock has nothing this platform's environment does not need, and .venv nothing more."""
    environment = default_environment()
    applicable = {
        canonicalize_name(requirement.name): requirement
        for requirement, _ in locked(LOCK.read_text(encoding="utf-8"))
        if requirement.marker is None or requirement.marker.evaluate(environment)
    }
    # Walk the dependencies from the project with every extra, by installed metadata.
    extras = set(metadata.metadata(PROJECT).get_all("Provides-Extra") or [])
    needed: set[str] = set()
    queue = [requirement for requirement in _requires(PROJECT, extras | {""})]
    while queue:
        requirement = queue.pop()
        name = canonicalize_name(requirement.name)
        if name in needed:
            continue
        needed.add(name)
        queue += _requires(name, set(requirement.extras) | {""})
    assert needed - set(applicable) == set(), "needed but not locked: run `make lock`"
    assert set(applicable) - needed == set(), "locked but needed by nothing: run `make lock`"
    installed = {
        canonicalize_name(dist.metadata["Name"]): dist.version for dist in metadata.distributions()
    }
    installed.pop(PROJECT)
    for name, requirement in applicable.items():
        version = next(iter(requirement.specifier)).version
        assert installed.get(name) == version, f"{name}: run `make install`"
    assert set(installed) == set(applicable), "installed but not locked"


def test_no_two_distributions_install_the_same_file():
    """ProperDocs and Zensical share .venv with MkDocs: none may overwrite another's files
    (ProperDocs is a fork of MkDocs, but installs as its own `properdocs` package and
    command; scripts in bin/ count too)."""
    owners: dict[str, str] = {}
    clashes = []
    for dist in metadata.distributions():
        owner = dist.metadata["Name"]
        for path in dist.files or []:
            name = str(path)
            if ".dist-info/" in name or "__pycache__" in name:
                continue
            other = owners.setdefault(name, owner)
            if other != owner:
                clashes.append(f"{name}: {other} and {owner}")
    assert len(owners) > 1000
    assert clashes == []
