"""The seed API's home of :class:`Step`; the class itself lives in :mod:`ek.calls` (the base layer).

>>> from ek.agents.base import Step
>>> Step("search", {"q": "cats"}).name
'search'
"""

from ek.calls import Step

__all__ = ["Step"]
