"""Manifest of a plugin imported by agent-import (subgraph strategy); a test plugin whose agent asks
for approval with ``interrupt()`` before it adds a payee.
"""

PLUGIN_ID = "payee"
TITLE = "Payees"
DESCRIPTION = "Adds payees, once the customer approves."
