"""A2UI v0.9 for the runtime: our catalog, wire models, the one validator, and screen files.

``validate_screen``/``validate_components``/``validate_message`` are the only validators; everything
that emits or accepts a screen goes through them.
"""

from runtime.a2ui.catalog import CATALOG_ID, COMPONENT_TYPES, catalog_for_prompt, load_catalog
from runtime.a2ui.models import (
    ActionEvent,
    ClientAction,
    Component,
    CreateSurface,
    DeleteSurface,
    Screen,
    ServerMessage,
    UpdateComponents,
    UpdateDataModel,
)
from runtime.a2ui.screens import (
    InvalidScreenError,
    create_surface_message,
    load_screen,
    load_screens,
    screen_events,
)
from runtime.a2ui.validate import (
    ValidationIssue,
    validate_components,
    validate_message,
    validate_screen,
)

__all__ = [
    "CATALOG_ID",
    "COMPONENT_TYPES",
    "ActionEvent",
    "ClientAction",
    "Component",
    "CreateSurface",
    "DeleteSurface",
    "InvalidScreenError",
    "Screen",
    "ServerMessage",
    "UpdateComponents",
    "UpdateDataModel",
    "ValidationIssue",
    "catalog_for_prompt",
    "create_surface_message",
    "load_catalog",
    "load_screen",
    "load_screens",
    "screen_events",
    "validate_components",
    "validate_message",
    "validate_screen",
]
