"""``ek.canon``'s canonicalizers keep the forms of short strings only: memory stays flat on long ones."""

from __future__ import annotations

import tracemalloc

import pytest

from ek.canon import bfcl, fold


@pytest.mark.parametrize("canon", [fold, bfcl], ids=["fold", "bfcl"])
def test_the_forms_of_long_strings_are_not_kept(canon) -> None:
    """Every string a model writes is canonicalized: an RL run whose policy writes long strings kept each
    distinct one (and its form) for good, up to 65,536 of them (200 MB after 500 strings of 200 kB)."""
    canon.cache_clear()
    tracemalloc.start()
    try:
        for i in range(20):
            canon(f"Text {i} " + "Word " * 20_000)  # 100 kB each
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert kept < 100_000, f"{kept:,} bytes kept after canonicalizing 20 strings of 100 kB"


def test_short_and_long_strings_get_their_forms_from_the_cache_or_not() -> None:
    long = "A  b, " * 200  # past the longest string whose form is kept
    for canon in (fold, bfcl):
        canon.cache_clear()
    for _ in range(2):  # computed, then (the short ones) read back from the cache
        assert [fold(" San  FRANCISCO "), fold("ＮＹＣ"), fold(long), fold("ﷺ" * 10)] == [
            "san francisco", "nyc", ("a b, " * 200).strip(), fold("ﷺ") * 10]
        assert [bfcl("San Francisco, CA"), bfcl(long)] == ["sanfranciscoca", "ab" * 200]
