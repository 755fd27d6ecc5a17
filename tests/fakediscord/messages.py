"""What a person sees of a message: text, buttons, select menus and attached files."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

EPHEMERAL = 1 << 6
LOADING = 1 << 7


@dataclass
class FakeFile:
    """An attached file as uploaded by the bot (bytes kept, unlike a real client's view)."""

    id: int
    filename: str
    data: bytes
    description: str | None
    content_type: str | None

    @property
    def is_png(self) -> bool:
        return self.data.startswith(b"\x89PNG\r\n\x1a\n")


@dataclass
class FakeMessage:
    """A message stored by the fake server; edits change it in place, so it stays current.

    ``data`` is the JSON Discord would return; ``files`` the attachments with their bytes.
    ``visible_to`` is the one user who may see an ephemeral message (None: everyone).
    """

    data: dict[str, Any]
    files: list[FakeFile] = field(default_factory=list)
    visible_to: int | None = None
    deleted: bool = False
    interaction_id: int | None = None
    edits: int = 0
    at: float = field(default_factory=time.perf_counter)  # when the bot's request arrived

    @property
    def id(self) -> int:
        return int(self.data["id"])

    @property
    def channel_id(self) -> int:
        return int(self.data["channel_id"])

    @property
    def content(self) -> str:
        return str(self.data.get("content") or "")

    @property
    def flags(self) -> int:
        return int(self.data.get("flags") or 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """A deferred reply ("Bot is thinking...") not yet filled in."""
        return bool(self.flags & LOADING)

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return list(self.data.get("embeds") or [])

    @property
    def text(self) -> str:
        """Everything a person can read: content, embed titles, descriptions, fields, footers."""
        parts = [self.content]
        for embed in self.embeds:
            parts += [embed.get("title") or "", embed.get("description") or ""]
            for f in embed.get("fields") or []:
                parts += [f.get("name") or "", f.get("value") or ""]
            parts.append((embed.get("footer") or {}).get("text") or "")
            parts.append((embed.get("author") or {}).get("name") or "")
        for component in self.components():
            parts.append(component.get("label") or component.get("placeholder") or "")
            parts += [o.get("label", "") for o in component.get("options") or []]
        parts += [f.description or "" for f in self.files]
        return "\n".join(p for p in parts if p)

    def components(self) -> Iterator[dict[str, Any]]:
        """Every interactive component (buttons, selects), row by row."""
        stack = list(self.data.get("components") or [])
        stack.reverse()
        while stack:
            c = stack.pop()
            if c.get("type") in (1, 17, 9):  # action row, container, section
                children = list(c.get("components") or [])
                if c.get("accessory"):
                    children.append(c["accessory"])
                stack.extend(reversed(children))
            else:
                yield c

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.components() if c.get("type") == 2]

    def selects(self) -> list[dict[str, Any]]:
        return [c for c in self.components() if c.get("type") in (3, 5, 6, 7, 8)]

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.components() if "custom_id" in c]

    def button(self, label: str | None = None, *, custom_id_contains: str | None = None
               ) -> dict[str, Any]:
        """The one button with this label (or custom_id fragment); KeyError if not there."""
        for b in self.buttons():
            if label is not None and b.get("label") != label:
                continue
            if custom_id_contains is not None and custom_id_contains not in b.get("custom_id", ""):
                continue
            return b
        labels = [b.get("label") for b in self.buttons()]
        raise KeyError(f"no button {label or custom_id_contains!r} on message; buttons: {labels}")

    def png_files(self) -> list[FakeFile]:
        return [f for f in self.files if f.is_png]

    def __repr__(self) -> str:
        return (f"<FakeMessage {self.id} ch={self.channel_id} {self.content[:60]!r} "
                f"files={[f.filename for f in self.files]} buttons={len(self.buttons())}>")
