"""Validate: does a rendered plugin import and hold a conversation, offline?

``plugin`` runs the checks of ``smoke`` in a fresh process, a fork of the ``warm`` interpreter
where it can, in the sandbox ``confined`` describes, and reports them; ``diagnosis`` and
``explain`` say why a check failed and how to fix it, ``hints`` read an ImportError's install
hint. The environment the checks run in is the dependencies step's (``generator.dependencies``).
"""
