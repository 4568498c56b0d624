"""The unit every scorer works on: one tool call of an agent's trajectory."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


def _check_name(instance: Step, attribute: attrs.Attribute, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"Step name must be a str, got {type(value).__name__}: {value!r}")


def _check_args(instance: Step, attribute: attrs.Attribute, value: object) -> None:
    if not isinstance(value, Mapping):
        raise TypeError(
            f"Step {instance.name!r}: args must be a mapping of argument name to value, "
            f"got {type(value).__name__}"
        )
    for key in value:
        if not isinstance(key, str):
            raise TypeError(f"Step {instance.name!r}: argument names must be str, got {key!r}")


@attrs.frozen(hash=False)
class Step:
    """One tool call: a tool ``name`` and its ``args`` (argument name -> value).

    >>> Step("search", {"q": "cats"})
    Step(name='search', args={'q': 'cats'})
    """

    name: str = attrs.field(validator=_check_name)
    args: Mapping[str, Any] = attrs.field(factory=dict, validator=_check_args)
