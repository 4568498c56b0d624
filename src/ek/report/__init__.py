"""Scoring a corpus and reporting it: accumulation, the terminal table, the JSON report and the HTML report."""
