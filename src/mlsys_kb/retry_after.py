"""The ``Retry-After`` header, read once for every HTTP client of the project (``add``,
``refresh`` and the external link check).

    Retry-After: 120
    Retry-After: Wed, 21 Oct 2015 07:28:00 GMT
"""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime


def retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds the server asks a client to wait, or None when it names no valid time.

    A date in the past means "now" (0 seconds). A date whose zone is "-0000" (which the
    email parser returns without a zone) is taken as UTC.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
