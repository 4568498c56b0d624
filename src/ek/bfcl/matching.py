"""Maximum bipartite matching (Kuhn's augmenting paths), iterative so it cannot recurse out.

BFCL assigns parallel calls first-fit: the first model call that fits a gold
call takes it, even when a later gold call could only have used that one.
Any complete assignment is a correct answer, so ek looks for one properly.
Edges are asked for lazily: in the common case (the first fitting call is
free) this costs what first-fit costs; only conflicts explore further.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def max_matching_lazy(left_size: int, right_size: int, fits: Callable[[int, int], bool]) -> list[int | None]:
    """For each left node, its right node (``None``: unmatched); the matching is maximum.

    ``fits(left, right)`` is called at most once per pair.

    >>> edges = {(0, 0), (0, 1), (1, 0)}
    >>> max_matching_lazy(2, 2, lambda i, j: (i, j) in edges)   # first-fit would strand left 1
    [1, 0]
    """
    memo: dict[tuple[int, int], bool] = {}

    def edge(left: int, right: int) -> bool:
        key = (left, right)
        if key not in memo:
            memo[key] = fits(left, right)
        return memo[key]

    owner: list[int | None] = [None] * right_size
    for start in range(left_size):
        seen = [False] * right_size
        # Depth-first search for an augmenting path, with an explicit stack of (left, next right to try).
        stack: list[tuple[int, int]] = [(start, 0)]
        path: list[int] = []  # right nodes along the current path
        found = False
        while stack:
            left, k = stack.pop()
            while k < right_size and (seen[k] or not edge(left, k)):
                k += 1
            if k >= right_size:
                if path:
                    path.pop()
                continue
            stack.append((left, k + 1))
            seen[k] = True
            path.append(k)
            if owner[k] is None:
                found = True
                break
            stack.append((owner[k], 0))  # type: ignore[arg-type]
        if found:
            # Each right node on the path goes to the left node that reached it.
            for (left, _), right in zip(stack, path):
                owner[right] = left
    assignment: list[int | None] = [None] * left_size
    for right, matched in enumerate(owner):
        if matched is not None:
            assignment[matched] = right
    return assignment


def max_matching(adjacency: Sequence[Sequence[int]], right_size: int) -> list[int | None]:
    """The same from explicit adjacency lists.

    >>> max_matching([[0, 1], [0]], 2)
    [1, 0]
    """
    sets = [set(options) for options in adjacency]
    return max_matching_lazy(len(adjacency), right_size, lambda i, j: j in sets[i])
