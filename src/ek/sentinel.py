"""Named singleton markers (``NO_DEFAULT``, ``OMITTABLE``, ``ABSENT``) where ``None`` is a real value."""

from __future__ import annotations

from typing import Any


class Sentinel:
    """One instance per subclass, shown and pickled as its ``NAME`` (a global of the subclass's module).

    >>> import pickle
    >>> from ek.values import OMITTABLE
    >>> OMITTABLE, pickle.loads(pickle.dumps(OMITTABLE)) is OMITTABLE
    (OMITTABLE, True)
    """

    NAME: str = ""

    def __new__(cls) -> Any:
        instance = cls.__dict__.get("_instance")
        if instance is None:
            instance = super().__new__(cls)
            cls._instance = instance
        return instance

    def __repr__(self) -> str:
        return self.NAME

    def __reduce__(self) -> str:
        return self.NAME
