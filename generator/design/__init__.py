"""The design step: an ``Inspection`` in, a validated ``Design`` (four A2UI screens) out.

``design()`` asks Claude on Amazon Bedrock and falls back to a deterministic designer;
``load_design()`` checks a hand-written design the same way. See ``designer.py`` for the flow and
``models.py`` for the ``Design`` contract (including the data model screens bind to).
"""

from generator.design.designer import design, load_design, preview_prompt
from generator.design.models import (
    DESIGN_VERSION,
    Design,
    DesignContent,
    ModelCall,
    Provenance,
)
from generator.design.options import DesignOptions

__all__ = [
    "DESIGN_VERSION",
    "Design",
    "DesignContent",
    "DesignOptions",
    "ModelCall",
    "Provenance",
    "design",
    "load_design",
    "preview_prompt",
]
