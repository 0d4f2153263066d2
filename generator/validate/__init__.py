"""Validate: does a rendered plugin import and hold a conversation, offline?

``environment`` compares the agent's requirements with what is installed and makes the isolated
validation environment after approval; ``plugin`` runs the checks of ``smoke`` in a fresh
process, a fork of the ``warm`` interpreter where it can, and reports them.
"""
