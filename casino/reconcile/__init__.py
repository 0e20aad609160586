"""Reconciliation: replay and cross-check the whole log, and record what was found.

It never changes history: each run appends its findings (and that it ran) as events of
its own stream, ``reconciliation-<run id>``.
"""
