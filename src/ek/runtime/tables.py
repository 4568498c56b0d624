"""The grammar table codec as generated modules import it (part of the runtime's contract).

The codec itself belongs to the grammar model (:mod:`ek.grammar.tables`); the
code generator writes tables with it and generated modules read them back
through this module, so they depend on ``ek.runtime`` alone.
"""

from ek.grammar.tables import grammar_from_table

__all__ = ["grammar_from_table"]
