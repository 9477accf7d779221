"""hermeslite: a terminal chat agent with context compression that keeps the thread."""

__version__ = "0.1.0"
