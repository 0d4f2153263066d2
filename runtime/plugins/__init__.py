"""Plugin folders: every sub-package here is discovered at start-up."""
