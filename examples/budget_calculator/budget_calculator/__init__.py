"""A deterministic affordability calculator (see graph.py)."""
