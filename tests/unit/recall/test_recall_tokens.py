"""The offline token counter: deterministic, conservative, no download."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hmem.recall.tokens import count_tokens, count_tokens_by_piece


def test_known_sizes() -> None:
    assert count_tokens("") == 0
    assert count_tokens("hello world") == 2
    assert count_tokens("Maya moved from London to Paris in March 2026.") == 11
    assert count_tokens("internationalisation") == 4  # long words split
    assert count_tokens("12345678") == 3  # digits in groups of three
    assert count_tokens("日本語") == 3  # each non-Latin character on its own


def test_roughly_four_characters_per_token_on_prose() -> None:
    prose = (
        "Maya is vegetarian and has a serious peanut allergy. She moved from London to "
        "Paris in March 2026, adopted a cat named Miso in April, and injured her knee in "
        "May, so she is no longer training for the Berlin Marathon."
    )
    ratio = len(prose) / count_tokens(prose)
    assert 3.5 <= ratio <= 5.0


@given(st.text(max_size=200), st.text(max_size=200))
def test_monotone_and_subadditive_enough(a: str, b: str) -> None:
    joined = count_tokens(a + " " + b)
    assert joined <= count_tokens(a) + count_tokens(b) + 1
    assert count_tokens(a + " " + b) >= max(count_tokens(a), count_tokens(b)) - 1


@given(st.text(max_size=300))
def test_the_one_pass_count_is_the_piece_by_piece_count(text: str) -> None:
    assert count_tokens(text) == count_tokens_by_piece(text)


@given(st.text(alphabet="ab9 \n\t\r.é日\u00a0\u2003٣", max_size=80))
def test_the_one_pass_count_on_runs_of_letters_digits_and_white_space(text: str) -> None:
    assert count_tokens(text) == count_tokens_by_piece(text)
