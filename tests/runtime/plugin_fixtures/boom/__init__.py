"""Boom: fails on demand; a test plugin."""
