"""The pure game core: tiles, scoring, paytables, exact odds and the seeded shoe.

This package imports only the standard library; everything else in the project
imports it, never the reverse.
"""
