"""Pydantic models of the A2UI v0.9 wire format and of every component in our catalog.

The models mirror ``catalog.json`` (a test checks they agree prop by prop) and use the wire names as
attribute names, so ``model_dump(mode="json", exclude_none=True)`` is exactly the JSON a renderer
receives. They are strict: JSON semantics (no ``"5"`` → ``5`` coercion) and unknown keys rejected.

Values are literals or data bindings ``{"path": "/json/pointer"}``; our catalog declares no client
functions, so function calls are not values here.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Annotated, Any, ClassVar, Final, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

ProtocolVersion = Literal["v0.9"]
PROTOCOL_VERSION: Final[ProtocolVersion] = "v0.9"

#: A JSON pointer (``/a/b``) or, inside a template, a path relative to the item (``a/b``); the
#: official validator's pattern.
PATH_PATTERN = re.compile(r"^(?:(?:/(?:[^~/]|~[01])*)*|(?:[^~/]|~[01])+(?:/(?:[^~/]|~[01])*)*)$")
DataPath = Annotated[str, Field(pattern=PATH_PATTERN.pattern)]


class WireModel(BaseModel):
    """Base of every wire model: JSON types only, unknown keys and ``null`` props rejected.

    ``None`` means "absent" (dumps drop it), so an explicit ``null`` would be read as something the
    renderer rejects; fields listed in ``nullable_fields`` are the exception.
    """

    model_config = ConfigDict(extra="forbid", strict=True)
    nullable_fields: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _reject_null(cls, data: Any) -> Any:
        items = data.items() if isinstance(data, dict) else ()
        nulls = [key for key, value in items if value is None and key not in cls.nullable_fields]
        if nulls:
            null = PydanticCustomError("a2ui_null", "null is not a value; leave the property out")
            raise ValidationError.from_exception_data(
                cls.__name__, [InitErrorDetails(type=null, loc=(key,), input=None) for key in nulls]
            )
        return data


class DataBinding(WireModel):
    """``{"path": "/json/pointer"}``: the value lives in the surface's data model."""

    path: DataPath


def _one_of(expected: str, *, dict_branch: Any = None, list_branch: Any = None) -> WrapValidator:
    """Report a failed union as one line naming what fits, instead of one error per branch.

    An object or list input is checked against the branch of its own kind, when there is one, so
    its precise errors (``path: field required``, ``[1].status: ...``) come through instead.
    """
    precise: dict[type, TypeAdapter[Any] | None] = {
        dict: TypeAdapter[Any](dict_branch) if dict_branch is not None else None,
        list: TypeAdapter[Any](list_branch) if list_branch is not None else None,
    }

    def validate(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError:
            adapter = precise.get(type(value))
            if adapter is not None:
                adapter.validate_python(value, strict=True)
            got = repr(value)
            raise PydanticCustomError(
                "a2ui_value",
                "expected {expected}, got {got}",
                {"expected": expected, "got": got if len(got) <= 60 else got[:57] + "..."},
            ) from None

    return WrapValidator(validate)


_BINDING = 'a binding {"path": "/json/pointer"}'
Number = int | float
DynamicString = Annotated[
    str | DataBinding, _one_of(f"a string or {_BINDING}", dict_branch=DataBinding)
]
DynamicNumber = Annotated[
    Number | DataBinding, _one_of(f"a number or {_BINDING}", dict_branch=DataBinding)
]
DynamicStringList = Annotated[
    list[str] | DataBinding,
    _one_of(f"a list of strings or {_BINDING}", dict_branch=DataBinding, list_branch=list[str]),
]
#: A string or a number, literal or bound: what a card shows as its value.
DisplayValue = Annotated[
    str | Number | DataBinding,
    _one_of(f"a string, a number or {_BINDING}", dict_branch=DataBinding),
]
DynamicValue = Annotated[
    str | Number | bool | list[Any] | DataBinding,
    _one_of(f"a string, number, boolean, list or {_BINDING}", dict_branch=DataBinding),
]

ComponentId = str


class ChildTemplate(WireModel):
    """``{"componentId", "path"}``: one ``componentId`` child per item of the list at ``path``."""

    componentId: ComponentId
    path: DataPath


ChildList = Annotated[
    list[ComponentId] | ChildTemplate,
    _one_of(
        'a list of component ids or a template {"componentId", "path"}',
        dict_branch=ChildTemplate,
        list_branch=list[ComponentId],
    ),
]


class EventAction(WireModel):
    """A server-side event; ``name`` is ``<plugin_id>.<action>`` (a house rule)."""

    name: str
    context: dict[str, DynamicValue] | None = None


class Action(WireModel):
    """What a click does: ``{"event": {"name", "context"}}``."""

    event: EventAction


class Accessibility(WireModel):
    """What assistive technologies announce for a component."""

    label: DynamicString | None = None
    description: DynamicString | None = None


class ComponentBase(WireModel):
    """Props every component has: ``id``, ``accessibility`` and ``weight`` (flex-grow in a Row)."""

    id: ComponentId
    component: str
    accessibility: Accessibility | None = None
    weight: Number | None = None


Justify = Literal["center", "end", "spaceAround", "spaceBetween", "spaceEvenly", "start", "stretch"]
Align = Literal["start", "center", "end", "stretch"]
Axis = Literal["vertical", "horizontal"]


class Column(ComponentBase):
    component: Literal["Column"] = "Column"
    children: ChildList
    justify: Justify | None = None
    align: Align | None = None


class Row(ComponentBase):
    component: Literal["Row"] = "Row"
    children: ChildList
    justify: Justify | None = None
    align: Align | None = None


class List(ComponentBase):
    component: Literal["List"] = "List"
    children: ChildList
    direction: Axis | None = None
    align: Align | None = None


class Card(ComponentBase):
    component: Literal["Card"] = "Card"
    child: ComponentId


class Text(ComponentBase):
    component: Literal["Text"] = "Text"
    text: DynamicString
    variant: Literal["h1", "h2", "h3", "h4", "h5", "caption", "body"] | None = None


class Image(ComponentBase):
    component: Literal["Image"] = "Image"
    url: DynamicString
    description: DynamicString | None = None
    fit: Literal["contain", "cover", "fill", "none", "scaleDown"] | None = None
    variant: (
        Literal["icon", "avatar", "smallFeature", "mediumFeature", "largeFeature", "header"] | None
    ) = None


class Divider(ComponentBase):
    component: Literal["Divider"] = "Divider"
    axis: Axis | None = None


class Button(ComponentBase):
    """No text prop: the label is the Text component named by ``child``."""

    component: Literal["Button"] = "Button"
    child: ComponentId
    action: Action
    variant: Literal["default", "primary", "borderless"] | None = None


class DataCard(ComponentBase):
    component: Literal["DataCard"] = "DataCard"
    title: DynamicString
    value: DisplayValue
    caption: DynamicString | None = None
    tone: Literal["neutral", "positive", "negative", "warning"] | None = None


class StatCard(ComponentBase):
    component: Literal["StatCard"] = "StatCard"
    label: DynamicString
    value: DisplayValue
    unit: DynamicString | None = None
    trend: Literal["up", "down", "flat"] | None = None


class BenefitCard(ComponentBase):
    component: Literal["BenefitCard"] = "BenefitCard"
    title: DynamicString
    description: DynamicString | None = None
    highlight: DynamicString | None = None


class Gauge(ComponentBase):
    component: Literal["Gauge"] = "Gauge"
    value: DynamicNumber
    label: DynamicString | None = None
    min: Number | None = None
    max: Number | None = None
    unit: DynamicString | None = None


class ProductCard(ComponentBase):
    component: Literal["ProductCard"] = "ProductCard"
    title: DynamicString
    subtitle: DynamicString | None = None
    price: DisplayValue | None = None
    features: DynamicStringList | None = None
    imageUrl: DynamicString | None = None
    action: Action | None = None


class ComparisonBadge(ComponentBase):
    component: Literal["ComparisonBadge"] = "ComparisonBadge"
    label: DynamicString
    value: DisplayValue | None = None
    direction: Literal["better", "worse", "equal"] | None = None


class ProgressBar(ComponentBase):
    component: Literal["ProgressBar"] = "ProgressBar"
    value: DynamicNumber
    label: DynamicString | None = None
    max: Number | None = None


class TimelineItem(WireModel):
    title: str
    date: str | None = None
    description: str | None = None
    status: Literal["done", "current", "upcoming"] | None = None


class Timeline(ComponentBase):
    component: Literal["Timeline"] = "Timeline"
    items: Annotated[
        list[TimelineItem] | DataBinding,
        _one_of(
            f"a list of {{title, date?, description?, status?}} or {_BINDING}",
            dict_branch=DataBinding,
            list_branch=list[TimelineItem],
        ),
    ]


class MapMarker(WireModel):
    latitude: Number
    longitude: Number
    label: str | None = None


class Map(ComponentBase):
    component: Literal["Map"] = "Map"
    latitude: DynamicNumber
    longitude: DynamicNumber
    zoom: Annotated[Number, Field(ge=1, le=20)] | None = None
    markers: (
        Annotated[
            list[MapMarker] | DataBinding,
            _one_of(
                f"a list of {{latitude, longitude, label?}} or {_BINDING}",
                dict_branch=DataBinding,
                list_branch=list[MapMarker],
            ),
        ]
        | None
    ) = None


Component = Annotated[
    Column
    | Row
    | List
    | Card
    | Text
    | Image
    | Divider
    | Button
    | DataCard
    | StatCard
    | BenefitCard
    | Gauge
    | ProductCard
    | ComparisonBadge
    | ProgressBar
    | Timeline
    | Map,
    Field(discriminator="component"),
]

#: Component type name → its model (the catalog's component set; a test keeps them equal).
COMPONENT_MODELS: dict[str, type[ComponentBase]] = {
    model.model_fields["component"].default: model for model in get_args(get_args(Component)[0])
}


class Theme(WireModel):
    """Surface theme, as the catalog's ``theme`` def describes it (renderers may read more keys)."""

    model_config = ConfigDict(extra="allow")

    primaryColor: Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")] | None = None
    iconUrl: str | None = None
    agentDisplayName: str | None = None


class CreateSurface(WireModel):
    surfaceId: str
    catalogId: str
    theme: Theme | None = None
    sendDataModel: bool | None = None


#: What a surface shows: at least one component.
Components = Annotated[list[Component], Field(min_length=1)]


class UpdateComponents(WireModel):
    surfaceId: str
    components: Components


class UpdateDataModel(WireModel):
    """Replace the value at ``path`` (``/`` or omitted: the whole model); no value removes it."""

    nullable_fields = frozenset({"value"})

    surfaceId: str
    path: DataPath | None = None
    value: Any = None


class DeleteSurface(WireModel):
    surfaceId: str


MESSAGE_KINDS = ("createSurface", "updateComponents", "updateDataModel", "deleteSurface")


class ServerMessage(WireModel):
    """A server→client message: ``{"version": "v0.9", <exactly one kind>}``."""

    version: ProtocolVersion
    createSurface: CreateSurface | None = None
    updateComponents: UpdateComponents | None = None
    updateDataModel: UpdateDataModel | None = None
    deleteSurface: DeleteSurface | None = None

    @model_validator(mode="after")
    def _exactly_one_kind(self) -> ServerMessage:
        kinds = [kind for kind in MESSAGE_KINDS if getattr(self, kind) is not None]
        if len(kinds) != 1:
            raise PydanticCustomError(
                "a2ui_message_kind",
                "a message holds exactly one of {kinds}, got {got}",
                {"kinds": ", ".join(MESSAGE_KINDS), "got": ", ".join(kinds) or "none"},
            )
        return self


class ActionEvent(WireModel):
    """A click as the client reports it; ``context`` has its bindings resolved."""

    name: str
    surfaceId: str
    sourceComponentId: str
    timestamp: str
    context: dict[str, Any]


class ClientAction(WireModel):
    """A client→server message: ``{"version": "v0.9", "action": {...}}``."""

    version: ProtocolVersion
    action: ActionEvent


class Screen(BaseModel):
    """A screen file (``<plugin>/screens/<name>.json``): its components and what the voice says.

    Only the shape is checked here; ``validate_screen`` checks the components and the voice text.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    components: list[dict[str, Any]]
    voice_text: str

    @cached_property
    def checked_components(self) -> list[Component]:
        """The components as A2UI models: checked once per screen, not on every turn showing it.

        Raises:
            ValidationError: a component the catalog does not allow.
        """
        return _COMPONENTS.validate_python(self.components)


_COMPONENTS: Final = TypeAdapter[list[Component]](Components)
