"""Gated: a payment step behind an ``interrupt_before`` breakpoint; a test plugin."""

PLUGIN_ID = "gated"
