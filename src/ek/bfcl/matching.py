"""Maximum bipartite matching (Kuhn's augmenting paths), iterative so it cannot recurse out.

BFCL assigns parallel calls first-fit: the first model call that fits a gold
call takes it, even when a later gold call could only have used that one.
Any complete assignment is a correct answer, so ek looks for one properly.
"""

from __future__ import annotations

from collections.abc import Sequence


def max_matching(adjacency: Sequence[Sequence[int]], right_size: int) -> list[int | None]:
    """For each left node, the right node it is matched to (``None``: unmatched); size is maximum.

    >>> max_matching([[0, 1], [0]], 2)   # first-fit would give left 0 the node 0 and strand left 1
    [1, 0]
    """
    owner: list[int | None] = [None] * right_size
    for start in range(len(adjacency)):
        seen = [False] * right_size
        # Depth-first search for an augmenting path, with an explicit stack.
        stack: list[tuple[int, int]] = [(start, 0)]
        path: list[int] = []  # right nodes along the current path
        found = False
        while stack:
            left, k = stack.pop()
            options = adjacency[left]
            if k >= len(options):
                if path:
                    path.pop()
                continue
            stack.append((left, k + 1))
            right = options[k]
            if seen[right]:
                continue
            seen[right] = True
            path.append(right)
            if owner[right] is None:
                found = True
                break
            stack.append((owner[right], 0))  # type: ignore[arg-type]
        if found:
            # Walk the path: each right node goes to the left node that reached it.
            lefts = [frame[0] for frame in stack]
            for left, right in zip(lefts, path):
                owner[right] = left
    assignment: list[int | None] = [None] * len(adjacency)
    for right, left in enumerate(owner):
        if left is not None:
            assignment[left] = right
    return assignment
