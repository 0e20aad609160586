"""Postgres plumbing: migrations, connection pools, the embedded server.

Generic and domain-agnostic; nothing here connects at import time.
"""
