"""The steps put together: ``importer`` (a new plugin), ``update`` (an existing one, as a
reviewable diff), ``demo`` (the main job end to end), and ``steps`` (their timed progress)."""
