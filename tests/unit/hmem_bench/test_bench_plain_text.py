"""The plain-text bench's own arithmetic (``hmem_bench.plain_text``): the BEAM split,
what inference adds per write, the change words LoCoMo's texts are counted by."""

from __future__ import annotations

from hmem_bench.plain_text import CHANGE_WORDS, _added, beam_split


def test_beam_split_halves_the_chats_and_all_keeps_them() -> None:
    chats = [f"100K/{n}" for n in range(1, 11)]
    assert beam_split(chats, "dev") == chats[:5]
    assert beam_split(chats, "test") == chats[5:]
    assert beam_split(chats, "all") == chats


def test_inference_adds_the_paired_difference_and_skips_refused_rows() -> None:
    on = [12.0, None, 30.0, 14.0]
    off = [10.0, 8.0, 10.0, 11.0]
    added = _added(on, off)
    assert added["n"] == 3
    assert added["p50"] == 3.0


def test_change_words() -> None:
    assert CHANGE_WORDS.search("Caroline moved from Sweden four years ago.")
    assert CHANGE_WORDS.search("John is now part of the fire-fighting brigade.")
    assert not CHANGE_WORDS.search("Melanie painted a lake sunrise last year.")
