"""A modal the bot opened for a person, and the submit Discord's app would send back.

A bot answers an interaction with a modal (callback type 9); Discord shows it to the person
who acted, and only that person can fill it in. Submitting sends a MODAL_SUBMIT interaction
(type 5) that mirrors the modal's layout with the typed values. The Discord app itself
refuses to send a value outside the text input's lengths or an empty required field, so
``submission`` raises ``ClientRefused`` for those instead of sending.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .interaction import Interaction


class ModalRefused(ValueError):
    """The Discord app would not submit this modal (kept apart from people.ClientRefused to
    avoid an import cycle; people re-raises it as ClientRefused)."""


@dataclass
class TextField:
    """One text input as the person sees it: its label and the limits the app enforces."""

    custom_id: str
    label: str
    style: int  # 1 short, 2 paragraph
    required: bool
    min_length: int
    max_length: int
    value: str  # pre-filled text ("" if none)
    placeholder: str


@dataclass
class FakeModal:
    """A modal on a person's screen, opened by the bot's answer to ``interaction``."""

    interaction: Interaction
    data: dict[str, Any]  # the modal as the bot sent it: custom_id, title, components
    closed: bool = False  # submitted, dismissed, or replaced by a newer modal
    submit: Interaction | None = None

    @property
    def custom_id(self) -> str:
        return str(self.data["custom_id"])

    @property
    def title(self) -> str:
        return str(self.data["title"])

    @property
    def user_id(self) -> int:
        return self.interaction.user_id

    @property
    def fields(self) -> list[TextField]:
        """The text inputs in order, with the label shown for each."""
        out = []
        for row in self.data.get("components") or []:
            if row.get("type") == 1:
                c = row["components"][0]
                label = c.get("label") or ""
            elif row.get("type") == 18:
                c = row["component"]
                label = row.get("label") or ""
            else:
                continue
            out.append(TextField(
                custom_id=c["custom_id"], label=label, style=int(c.get("style") or 1),
                required=c.get("required", True) is not False,
                min_length=int(c.get("min_length") or 0),
                max_length=int(c.get("max_length") or 4000),
                value=str(c.get("value") or ""), placeholder=str(c.get("placeholder") or "")))
        return out

    def field(self, label_or_id: str) -> TextField:
        """The text input with this label or custom_id; KeyError if the modal has none."""
        for f in self.fields:
            if label_or_id in (f.label, f.custom_id):
                return f
        raise KeyError(f"no text input {label_or_id!r} in modal {self.title!r}")

    def submission(self, values: dict[str, str]) -> dict[str, Any]:
        """The MODAL_SUBMIT ``data`` for ``values`` (by custom_id or label), as Discord sends it.

        Fields left out keep their pre-filled text. Raises ``ModalRefused`` where the app
        would not let the person press Submit.
        """
        by_id: dict[str, str] = {}
        for key, value in values.items():
            try:
                by_id[self.field(key).custom_id] = str(value)
            except KeyError as exc:
                raise ModalRefused(str(exc)) from None
        typed: dict[str, str] = {}
        for f in self.fields:
            value = by_id.get(f.custom_id, f.value)
            if not value and f.required:
                raise ModalRefused(f"{f.label!r} is required")
            if value and len(value) < f.min_length:
                raise ModalRefused(f"{f.label!r} needs at least {f.min_length} characters")
            if len(value) > f.max_length:
                raise ModalRefused(f"{f.label!r} takes at most {f.max_length} characters")
            if f.style == 1 and "\n" in value:
                raise ModalRefused(f"{f.label!r} is one line")
            typed[f.custom_id] = value
        components: list[dict[str, Any]] = []
        for row in self.data.get("components") or []:
            if row.get("type") == 1:
                c = row["components"][0]
                components.append({"type": 1, "components": [_submitted(c, typed)]})
            elif row.get("type") == 18:
                entry = {"type": 18, "component": _submitted(row["component"], typed)}
                if "id" in row:
                    entry["id"] = row["id"]
                components.append(entry)
        return {"custom_id": self.custom_id, "components": components}

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<FakeModal {self.custom_id!r} {self.title!r} {state}>"


def _submitted(component: dict[str, Any], typed: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": 4, "custom_id": component["custom_id"],
                           "value": typed[component["custom_id"]]}
    if "id" in component:
        out["id"] = component["id"]
    return out
