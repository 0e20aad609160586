"""Read models: rows derived from events, kept in the same transaction as the append.

``projection.project`` is a pure function from one recorded event to row changes; the
same changes are applied to Postgres live (``sql_apply``) and to memory when the whole
log is replayed (``rebuild``), so both paths cannot drift apart.
"""
