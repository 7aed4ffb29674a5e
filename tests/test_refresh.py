"""``mlsys-kb refresh issues`` against a real HTTP server on 127.0.0.1 serving a recorded
GitHub API response: only the state values change, comments and all else stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from mlsys_kb import validate
from mlsys_kb.cli import main

from .test_add_fetch import (
    GITHUB_ISSUE,
    RecordedServer,
    Reply,
    recorded,
    refused_url,
    server,  # noqa: F401 - the fixture
)

ISSUES = """\
# yaml-language-server: $schema=../schemas/issues.schema.json
# Issues whose state the scheduled workflow keeps up to date.

- id: pygithub-28
  repo: PyGithub/PyGithub
  number: 28
  title: Issue created by PyGithub
  state: open  # was open when catalogued
  symptom: "An issue the library's own tests create."
  topics: [tools]
  added: 2026-11-21

# still open upstream
- id: pygithub-29
  repo: PyGithub/PyGithub
  number: 29
  title: Another issue
  state: "open"
  symptom: Something else.
  topics: [tools]
  added: 2026-11-21
"""

OPEN_29 = b'{"number": 29, "title": "Another issue", "state": "open"}'


@pytest.fixture
def issues(project: Path, server: RecordedServer, monkeypatch) -> Path:  # noqa: F811
    (project / "data" / "issues.yaml").write_text(ISSUES, encoding="utf-8")
    server.route("/repos/PyGithub/PyGithub/issues/28", recorded(GITHUB_ISSUE))
    server.route("/repos/PyGithub/PyGithub/issues/29", Reply(200, OPEN_29))
    monkeypatch.setenv("MLSYS_KB_GITHUB_API", server.url)
    monkeypatch.setenv("MLSYS_KB_HTTP_BACKOFF", "0.01")
    assert validate.load(project)[1] == []
    return project / "data" / "issues.yaml"


def refresh(project: Path, *args: str) -> int:
    return main(["--root", str(project), "refresh", "issues", *args])


def test_only_changed_states_are_rewritten(project: Path, issues: Path, capsys):
    assert refresh(project) == 0
    captured = capsys.readouterr()
    assert captured.out == (
        "data/issues.yaml:4:1: pygithub-28: PyGithub/PyGithub#28 open -> closed\n"
    )
    assert "1 issue state(s) changed, 0 could not be refreshed" in captured.err
    assert issues.read_text(encoding="utf-8") == ISSUES.replace(
        "state: open  # was open", "state: closed  # was open"
    )
    assert validate.load(project)[1] == []
    assert refresh(project) == 0  # nothing left to change
    assert issues.read_text(encoding="utf-8").count("state: closed") == 1


def test_dry_run_reports_and_changes_nothing(project: Path, issues: Path, capsys):
    assert refresh(project, "--dry-run") == 0
    assert "open -> closed" in capsys.readouterr().out
    assert issues.read_text(encoding="utf-8") == ISSUES


def test_an_issue_that_cannot_be_fetched_is_reported_and_the_rest_updated(
    project: Path,
    issues: Path,
    server: RecordedServer,  # noqa: F811
    capsys,
):
    server.route("/repos/PyGithub/PyGithub/issues/29", Reply(404, b'{"message": "Not Found"}'))
    assert refresh(project) == 1
    captured = capsys.readouterr()
    assert "data/issues.yaml:14:1: pygithub-29: GitHub has no issue PyGithub/PyGithub#29" in (
        captured.err
    )
    assert "state: closed  # was open" in issues.read_text(encoding="utf-8")


def test_a_token_is_sent_when_set(project: Path, issues: Path, server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("GITHUB_TOKEN", "secret-for-test")
    assert refresh(project) == 0
    assert {seen.headers.get("Authorization") for seen in server.seen} == {"Bearer secret-for-test"}


def test_offline_changes_nothing(project: Path, issues: Path, monkeypatch, capsys):
    monkeypatch.setenv("MLSYS_KB_GITHUB_API", refused_url())
    assert refresh(project) == 1
    err = capsys.readouterr().err
    assert "mlsys-kb refresh: error: cannot reach 127.0.0.1" in err
    assert "nothing was changed" in err
    assert issues.read_text(encoding="utf-8") == ISSUES


def test_rate_limited_then_answered(project: Path, issues: Path, server: RecordedServer):  # noqa: F811
    server.route(
        "/repos/PyGithub/PyGithub/issues/28",
        Reply(429, b"", {"Retry-After": "0"}),
        recorded(GITHUB_ISSUE),
    )
    assert refresh(project) == 0
    assert "state: closed" in issues.read_text(encoding="utf-8")
    assert server.hits("/repos/PyGithub/PyGithub/issues/28") == 2
