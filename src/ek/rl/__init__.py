"""Reward adapters for RL trainers that load a reward function by path: verl and OpenRLHF.

Both adapters score through :mod:`ek.rewards` (one implementation, one set of
:class:`~ek.rewards.RewardOptions`), so with the same options a response gets the
same reward in TRL, verl and OpenRLHF. Each adapter is a real ``.py`` file with
absolute imports only, because the trainers may load it by file path under a
made-up module name; ``python -m ek.rl.verl --path`` and ``python -m ek.rl.openrlhf --path``
print where it is.
"""

from __future__ import annotations

import argparse
from pathlib import Path

#: The trainers with an adapter here, each the name of its module in this package.
FRAMEWORKS = ("verl", "openrlhf")


def adapter_path(framework: str) -> Path:
    """The file of a framework's adapter, to give the trainer as a path.

    >>> adapter_path("openrlhf").name
    'openrlhf.py'
    """
    if framework not in FRAMEWORKS:
        raise ValueError(f"no adapter for {framework!r}; there is one for {', '.join(FRAMEWORKS)}")
    return Path(__file__).resolve().with_name(f"{framework}.py")


def main(framework: str, argv: list[str] | None = None) -> None:
    """``python -m ek.rl.<framework> --path``: print the adapter's file path (what the trainer is given)."""
    parser = argparse.ArgumentParser(prog=f"python -m ek.rl.{framework}",
                                     description=f"ek's reward adapter for {framework} (docs/rl.md)")
    parser.add_argument("--path", action="store_true", help="print the path of this adapter's file")
    args = parser.parse_args(argv)
    if not args.path:
        parser.print_help()
        return
    print(adapter_path(framework))


__all__ = ["FRAMEWORKS", "adapter_path", "main"]
