"""Rendering a finished corpus result: the terminal table, the JSON report, the HTML report, the progress bar.

Nothing here scores: :mod:`ek.corpus` produces the result these modules show.
"""
