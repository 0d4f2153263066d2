"""Lost Card: freeze, replace and report a lost or stolen card.

A scaffold for now: every turn answers "Lost Card Agent coming soon." with one screen. The full
domain replaces it (see issue 7).
"""

PLUGIN_ID = "lost_card"
TITLE = "Lost Card"
DESCRIPTION = "Freeze, replace or report a lost or stolen card (coming soon)."
