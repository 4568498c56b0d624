"""Tool definitions in other formats <-> ek grammars: OpenAI, Anthropic, MCP, JSON Schema and BFCL.

``import_tools(data, source)`` gives an :class:`ImportResult` (grammar plus
issues); ``export_tools(grammar, target)`` gives JSON data plus issues. What
one side can say and the other cannot is an :class:`Issue` with its JSON
path, never dropped silently. See ``ek import`` and ``ek export``.
"""

from ek.interop.api import ImportResult, export_tools, import_tools
from ek.interop.issues import Issue
from ek.interop.sources import SOURCES
from ek.interop.targets import TARGETS

__all__ = ["ImportResult", "Issue", "SOURCES", "TARGETS", "export_tools", "import_tools"]
