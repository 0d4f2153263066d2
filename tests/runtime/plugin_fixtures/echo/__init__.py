"""Echo: repeats what it hears; a test plugin."""

PLUGIN_ID = "echo"
