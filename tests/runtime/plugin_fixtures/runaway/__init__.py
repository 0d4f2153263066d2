"""Runaway: a loop that never stops, a failure halfway, a slow loop; a test plugin."""

PLUGIN_ID = "runaway"
