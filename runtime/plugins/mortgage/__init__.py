"""Mortgage Assistant: the runtime's default agent.

Finds a mortgage deal from what the customer says ("my house is worth 400k and I owe 250k, 5 year
fix over 25 years"): asks for what is missing, computes loan-to-value, offers products from a
bundled table with their monthly payments, and summarises the one the customer picks. Fully
deterministic: no language model is involved.
"""

PLUGIN_ID = "mortgage"
TITLE = "Mortgage Assistant"
DESCRIPTION = "Finds a mortgage deal from what you tell it about your home and your loan."
