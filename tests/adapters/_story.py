"""The story every adapter's must-show test tells, and what the model must then see.

Session 0 (an earlier one) said "I live in London"; session 1 says "I moved from London
to Paris last month"; session 2 asks where the user lived before. The scripted model of
session 1 writes the move with its structure (``valid_from`` and the fact it replaces),
as a model with hmem's tools does: hmem's plain-text date/change inference for
framework-written text is another change, so these tests do not rely on it.
"""

from __future__ import annotations

SESSION_0 = "I live in London."
SESSION_1 = "I moved from London to Paris last month."
SESSION_2 = "Where did I live before Paris?"

LONDON = "Maya lives in London."
LONDON_FROM = "2024-05-01T00:00:00Z"
PARIS = "Maya moved from London to Paris in November 2026."
MOVED = "2026-11-01T00:00:00Z"
TOLD = "2026-12-04T10:00:00Z"  # when session 1 happened ("last month" = November)


def assert_story(model_input: str) -> None:
    """London on a line with its whole window (from 2024-05-01, ended by the move on
    2026-11-01), and the move to Paris with its date."""
    london = [line for line in model_input.splitlines() if "lives in London" in line]
    assert london, model_input
    assert any("2024-05-01" in line and "2026-11-01" in line for line in london), model_input
    paris = [line for line in model_input.splitlines() if "to Paris" in line]
    assert any("2026-11-01" in line for line in paris), model_input


def assert_nothing_of_maya(model_input: str) -> None:
    """The other user's input (its question names Paris itself) holds none of Maya's."""
    for hers in ("London", "2024-05-01", "2026-11-01", "Maya"):
        assert hers not in model_input, model_input
