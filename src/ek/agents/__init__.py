"""Scorers for agent behaviour; :mod:`ek.agents.toolcalls` scores tool calls."""
