"""Memo: remembers facts across sessions in the runtime's store; a test plugin."""

PLUGIN_ID = "memo"
