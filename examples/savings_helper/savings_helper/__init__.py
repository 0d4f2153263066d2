"""A deterministic savings FAQ agent (see graph.py)."""
