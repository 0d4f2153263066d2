"""The change report of an update: what changed upstream and in the template, as the commit
message and the pull request say it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Changes(BaseModel):
    """What an update changes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    commits: tuple[str, str] = Field(description="The recorded and the new upstream commit.")
    template: tuple[str, str] = Field(description="The recorded and the new template commit.")
    fields_added: list[str] = Field(default_factory=list)
    fields_removed: list[str] = Field(default_factory=list)
    fields_changed: list[str] = Field(default_factory=list, description="Type or reducer.")
    nodes_added: list[str] = Field(default_factory=list)
    nodes_removed: list[str] = Field(default_factory=list)
    requirements_added: list[str] = Field(default_factory=list)
    requirements_removed: list[str] = Field(default_factory=list)
    screens_redesigned: list[str] = Field(default_factory=list)
    screens_kept: list[str] = Field(default_factory=list)
    screens_hand_edited: list[str] = Field(
        default_factory=list, description="Screens whose edits in the repository were merged."
    )

    @property
    def agent_changed(self) -> bool:
        """The state fields or nodes changed: the screens were designed again."""
        shape = (self.fields_added, self.fields_removed, self.fields_changed)
        return any(shape) or bool(self.nodes_added or self.nodes_removed)

    def message(self, plugin_id: str) -> str:
        """The commit message: a subject line, then one line per kind of change."""
        upstream, template = _range(self.commits), _range(self.template)
        if self.commits[0] != self.commits[1]:
            subject = f"Update plugin {plugin_id}: upstream {upstream}"
        elif self.template[0] != self.template[1]:
            subject = f"Update plugin {plugin_id}: template {template}"
        else:
            subject = f"Update plugin {plugin_id}"
        body = [
            f"Source: {self.source}",
            f"Upstream commits: {upstream}",
            f"Template: {template}",
            _listed("State fields added", self.fields_added),
            _listed("State fields removed", self.fields_removed),
            _listed("State fields changed", self.fields_changed),
            _listed("Nodes added", self.nodes_added),
            _listed("Nodes removed", self.nodes_removed),
            "" if self.agent_changed else "State fields and nodes: unchanged",
            _listed("Dependencies added", self.requirements_added),
            _listed("Dependencies removed", self.requirements_removed),
            ""
            if self.requirements_added or self.requirements_removed
            else "Dependencies: unchanged",
            _listed("Screens re-designed", self.screens_redesigned),
            _listed(
                "Screens the new design left as they were"
                if self.agent_changed
                else "Screens kept",
                self.screens_kept,
            ),
            _listed("Hand edits merged in screens", self.screens_hand_edited),
        ]
        return "\n".join([subject, "", *(line for line in body if line)]) + "\n"

    def up_to_date_message(self, plugin_id: str) -> str:
        return (
            f"{plugin_id} is up to date: upstream {short(self.commits[1])}, "
            f"template {short(self.template[1])}\n"
        )


def shape_changes(old: dict[str, Any], new: dict[str, Any]) -> dict[str, list[str]]:
    """State fields and nodes added, removed or changed between two ``agent_shape``s; empty
    when the design still fits."""

    def fields(shape: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
        return {f["name"]: (f.get("type"), f.get("reducer")) for f in shape.get("state") or []}

    def nodes(shape: dict[str, Any]) -> list[str]:
        return [n["name"] for n in shape.get("nodes") or []]

    old_fields, new_fields = fields(old), fields(new)
    changes = {
        "fields_added": [name for name in new_fields if name not in old_fields],
        "fields_removed": [name for name in old_fields if name not in new_fields],
        "fields_changed": [
            name
            for name in new_fields
            if name in old_fields and new_fields[name] != old_fields[name]
        ],
        "nodes_added": [name for name in nodes(new) if name not in nodes(old)],
        "nodes_removed": [name for name in nodes(old) if name not in nodes(new)],
    }
    return {key: names for key, names in changes.items() if names}


def source_label(url: str, ref: object) -> str:
    return f"{url} (ref {ref})" if ref else url


def short(commit: str) -> str:
    return commit[:12] or "none"


def _range(commits: tuple[str, str]) -> str:
    old, new = (short(commit) for commit in commits)
    return f"{old}..{new}" if old != new else f"{new} (unchanged)"


def _listed(label: str, names: list[str]) -> str:
    return f"{label}: {', '.join(names)}" if names else ""
