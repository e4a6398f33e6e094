"""Benchmarks: each prints its figures as ratios against a baseline measured in the same run.

``python -m tests.bench`` runs them all; ``FIELDSTATION_BENCH=short`` runs a few iterations
only, to prove they work (CI). They are not timed tests.
"""
