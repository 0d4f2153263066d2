"""Lost Card: freeze, replace or report a lost or stolen card, by voice or on screen.

Deterministic end to end: free text is understood by rules (``understanding``), the bank is an
in-memory simulator (``bank``), and every step that changes the card goes through the policy
(``policy``): an explicit yes, identity first when the risk is high, and an audit event.
"""

PLUGIN_ID = "lost_card"
TITLE = "Lost Card"
DESCRIPTION = "Freeze, replace or report a lost or stolen card, and check its recent payments."
