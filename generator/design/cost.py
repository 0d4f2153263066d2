"""An estimate of what a design cost, from the tokens in its provenance.

Prices are Anthropic's list prices on Bedrock on-demand in USD per million tokens when this was
written; regional and cross-region (``us.``/``eu.``/``global.``) profiles, batch, caching and
negotiated discounts all change them. The figure is a guide for the reviewer, not a bill.
"""

from __future__ import annotations

from generator.design.models import Provenance

#: Model family (a substring of the Bedrock model id) → (input, output) USD per million tokens.
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "anthropic.claude-opus-4-6": (5.0, 25.0),
    "anthropic.claude-opus-4-5": (5.0, 25.0),
    "anthropic.claude-sonnet-4-6": (3.0, 15.0),
    "anthropic.claude-sonnet-4-5": (3.0, 15.0),
    "anthropic.claude-sonnet-4": (3.0, 15.0),
    "anthropic.claude-haiku-4-5": (1.0, 5.0),
    "anthropic.claude-3-5-haiku": (0.8, 4.0),
}


def price(model_id: str) -> tuple[float, float] | None:
    """The (input, output) price per million tokens of a model id, if known."""
    for family, prices in PRICES_PER_MILLION.items():
        if family in model_id:
            return prices
    return None


def estimate_usd(provenance: Provenance) -> float | None:
    """The estimated USD cost of a design's model calls; ``None`` if a price is unknown."""
    total = 0.0
    for call in provenance.calls:
        prices = price(call.model_id)
        if prices is None:
            return None
        total += (call.input_tokens * prices[0] + call.output_tokens * prices[1]) / 1_000_000
    return total
