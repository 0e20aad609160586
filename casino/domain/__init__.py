"""The domain: commands, events and the decisions that turn one into the other.

Pure: it imports the game core and the standard library, never persistence or HTTP.
State is a fold over a stream's events; a decision takes state and a command and
returns the events to append, or raises a ``DomainError``.
"""
