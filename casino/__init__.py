"""casino: an event-sourced backend for Casino Dominoes and its Doubles side bet."""

__version__ = "0.1.0"
