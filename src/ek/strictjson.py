"""JSON objects read strictly: a key given twice is an error, never a silent choice.

``json.loads`` keeps the last of two values of one key. In gold calls or a corpus line that can make a wrong
output score as exact, so every decoder of such text takes :func:`unique_keys` as its ``object_pairs_hook``.
"""

from __future__ import annotations

from typing import Any


class DuplicateKeyError(ValueError):
    """A JSON object giving one key twice: which value is meant is ambiguous. ``key`` is the key; callers
    that know where the text came from locate it (:func:`ek.parsing.json_text.duplicate_position`)."""

    def __init__(self, key: str) -> None:
        super().__init__(f"duplicate key {key!r:.80} in a JSON object: which value is meant is ambiguous")
        self.key = key


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` refusing a key given twice (json would silently keep the last one).

    >>> import json
    >>> json.loads('{"a": 1, "b": 2}', object_pairs_hook=unique_keys)
    {'a': 1, 'b': 2}
    >>> json.loads('{"a": 1, "a": 2}', object_pairs_hook=unique_keys)
    Traceback (most recent call last):
    ...
    ek.strictjson.DuplicateKeyError: duplicate key 'a' in a JSON object: which value is meant is ambiguous
    """
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise DuplicateKeyError(twice)
    return obj


__all__ = ["DuplicateKeyError", "unique_keys"]
