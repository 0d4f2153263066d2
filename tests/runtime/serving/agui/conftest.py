"""The ``agui_client`` fixture (``official_client``): the official AG-UI client for these tests."""

from tests.runtime.serving.agui.official_client import agui_client

__all__ = ["agui_client"]
