"""The link checks' results as people and tools read them: terminal lines, GitHub
annotations, Markdown (for an issue) and JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .external import ExternalReport, Finding
from .internal import Failure, InternalReport

MAX_ROWS = 200  # per table in a Markdown report: an issue body holds 65,536 characters


def _cell(text: object) -> str:
    """Text for a Markdown table cell: no line breaks, no pipes, no HTML, no mentions."""
    value = " ".join(str(text).split()).replace("|", "\\|")
    value = value.replace("<", "&lt;").replace(">", "&gt;").replace("@", "@\u200b")
    return value


def _code(text: object) -> str:
    value = " ".join(str(text).split()).replace("|", "\\|").replace("`", "'")
    return f"`{value}`"


# --- internal -----------------------------------------------------------------------------


def internal_lines(report: InternalReport, site_label: str, github: bool = False) -> list[str]:
    lines = []
    for failure in report.failures:
        place = f"{site_label}/{failure.page}"
        if github:
            message = f"{failure.link}: {failure.reason}".replace("%", "%25").replace("\n", "%0A")
            lines.append(
                f"::error file={place},line={failure.line},col={failure.column}::{message}"
            )
        else:
            lines.append(
                f"{place}:{failure.line}:{failure.column}: {failure.link}: {failure.reason}"
            )
    return lines


def internal_summary(report: InternalReport) -> str:
    broken = sum(1 for f in report.failures if f.kind == "broken")
    anchors = sum(1 for f in report.failures if f.kind == "anchor")
    return (
        f"{report.pages} pages, {report.urls} URLs checked by LinkChecker in "
        f"{report.seconds:.1f} s (self-check passed: the canary's planted problems were "
        f"found): {broken} broken link(s), {anchors} missing anchor(s)"
        + (f", {len(report.warnings)} warning(s)" if report.warnings else "")
    )


def internal_json(report: InternalReport) -> dict[str, Any]:
    return {
        "site": str(report.site),
        "served_under": report.base,
        "pages": report.pages,
        "urls_checked": report.urls,
        "seconds": round(report.seconds, 3),
        "failures": [f.as_dict() for f in report.failures],
        "warnings": [w.as_dict() for w in report.warnings],
    }


def internal_markdown(report: InternalReport, site_label: str) -> str:
    out = ["# Internal link check", "", internal_summary(report) + ".", ""]
    if report.failures:
        out += ["| Page | Line | Link | Problem |", "|---|---|---|---|"]
        for failure in report.failures[:MAX_ROWS]:
            out.append(_row_internal(failure, site_label))
        if len(report.failures) > MAX_ROWS:
            out.append(f"\n… and {len(report.failures) - MAX_ROWS} more; see the JSON report.")
    return "\n".join(out) + "\n"


def _row_internal(failure: Failure, site_label: str) -> str:
    return (
        f"| {_code(site_label + '/' + failure.page)} | {failure.line} "
        f"| {_code(failure.link)} | {_cell(failure.reason)} |"
    )


# --- external -----------------------------------------------------------------------------

_TITLES = {
    "broken": "Broken",
    "failing": "Failing again and again",
    "pending": "Failed once, to be confirmed by the next run",
    "allowed": "Refused to checkers by an allow-listed host",
}
_EXPLAIN = {
    "broken": "Two runs in a row agree: fix or remove these links.",
    "failing": "Timeouts, refused connections, 429 or 5xx answers for several runs or days.",
    "pending": "Not reported as broken yet: a single failure may be a bad day.",
    "allowed": "These hosts wall off bots; see data/link-allowlist.yaml.",
}


def external_summary(report: ExternalReport) -> str:
    if report.network == "unreachable":
        return (
            "The network is unreachable: no URL and no canary answered. Nothing was "
            "checked, and the cache is unchanged"
        )
    counts = {verdict: len(report.by_verdict(verdict)) for verdict in _TITLES}
    return (
        f"{len(report.findings)} external URLs, {report.checked} checked in this run "
        f"({report.seconds:.1f} s), the rest fresh in the cache: "
        f"{counts['broken']} broken, {counts['failing']} failing, "
        f"{counts['pending']} to confirm, {counts['allowed']} allowed"
    )


def external_lines(report: ExternalReport) -> list[str]:
    if report.network == "unreachable":
        return []
    lines = []
    for verdict in ("broken", "failing", "pending"):
        for finding in report.by_verdict(verdict):
            for source in finding.sources:
                lines.append(f"{source}: {verdict}: {finding.url}: {finding.record.detail}")
    return lines


def _row_external(finding: Finding) -> str:
    record = finding.record
    where = "<br>".join(_code(source) for source in finding.sources[:3])
    if len(finding.sources) > 3:
        where += f"<br>and {len(finding.sources) - 3} more"
    since = (record.first_failed or record.checked or "")[:10]
    return (
        f"| {_cell(finding.url)} | {_cell(record.detail)} | {record.failures} | {since} | {where} |"
    )


def external_markdown(report: ExternalReport) -> str:
    out = ["# External link check", "", external_summary(report) + ".", ""]
    if report.network == "unreachable":
        return "\n".join(out) + "\n"
    for verdict, title in _TITLES.items():
        findings = report.by_verdict(verdict)
        if not findings:
            continue
        out += [f"## {title} ({len(findings)})", "", _EXPLAIN[verdict], ""]
        out += [
            "| URL | Answer | Failed runs | Since | Where |",
            "|---|---|---|---|---|",
        ]
        out += [_row_external(finding) for finding in findings[:MAX_ROWS]]
        if len(findings) > MAX_ROWS:
            out.append(f"\n… and {len(findings) - MAX_ROWS} more; see the JSON report.")
        out.append("")
    if report.ok:
        out.append("No link is broken or failing.")
    return "\n".join(out).rstrip() + "\n"


def external_json(report: ExternalReport) -> dict[str, Any]:
    return {
        "started": report.started.isoformat(),
        "seconds": round(report.seconds, 3),
        "network": report.network,
        "urls": len(report.findings),
        "checked": report.checked,
        "links": [
            {
                "url": finding.url,
                "verdict": finding.record.verdict,
                "checked_now": finding.checked_now,
                "answer": finding.record.detail,
                "code": finding.record.code,
                "kind": finding.record.kind,
                "failures": finding.record.failures,
                "first_failed": finding.record.first_failed,
                "checked": finding.record.checked,
                "final_url": finding.record.final_url,
                "sources": [
                    {
                        "path": s.path,
                        "line": s.line,
                        "column": s.column,
                        "entry": s.entry,
                        "field": s.field,
                    }
                    for s in finding.sources
                ],
            }
            for finding in report.findings
        ],
    }


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_json(path: Path, data: dict[str, Any]) -> None:
    write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
