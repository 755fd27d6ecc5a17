"""Limits Discord enforces on what a bot sends (PRODUCT.md "Limits of the platform").

The fake refuses a payload that Discord would refuse (400, code 50035), so a bot bug such as
a 26th select option or a sixth button row fails a test here instead of failing in a server.
"""

from __future__ import annotations

from typing import Any


def check_message_payload(payload: dict[str, Any], n_files: int) -> str | None:
    """What is wrong with a message payload, or None."""
    content = payload.get("content") or ""
    if len(content) > 2000:
        return f"content is {len(content)} characters (at most 2000)"
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        return "more than 10 embeds"
    for embed in embeds:
        if len(embed.get("title") or "") > 256:
            return "embed title over 256 characters"
        if len(embed.get("description") or "") > 4096:
            return "embed description over 4096 characters"
        if len(embed.get("fields") or []) > 25:
            return "more than 25 embed fields"
    if n_files > 10:
        return "more than 10 files"
    rows = payload.get("components") or []
    if len(rows) > 5 and not int(payload.get("flags") or 0) & (1 << 15):
        return f"{len(rows)} action rows (at most 5)"
    seen: set[str] = set()
    for row in rows:
        problem = _check_row(row, seen)
        if problem:
            return problem
    return None


def _check_row(row: dict[str, Any], seen: set[str]) -> str | None:
    if row.get("type") != 1:
        return None  # components v2 layouts are not used by this bot
    children = row.get("components") or []
    if not 1 <= len(children) <= 5:
        return f"an action row holds {len(children)} components (1 to 5)"
    selects = [c for c in children if c.get("type") in (3, 5, 6, 7, 8)]
    if selects and len(children) > 1:
        return "a select menu must be alone in its row"
    for c in children:
        custom_id = c.get("custom_id")
        if custom_id is not None:
            if not 1 <= len(custom_id) <= 100:
                return f"custom_id {custom_id!r} is not 1 to 100 characters"
            if custom_id in seen:
                return f"custom_id {custom_id!r} used twice in one message"
            seen.add(custom_id)
        elif c.get("type") == 2 and c.get("style") != 5:
            return "a button without custom_id"
        if len(c.get("label") or "") > 80:
            return f"button label {c.get('label')!r} over 80 characters"
        if c.get("type") == 3:
            options = c.get("options") or []
            if not 1 <= len(options) <= 25:
                return f"a select menu with {len(options)} options (1 to 25)"
            for o in options:
                if len(o.get("label") or "") > 100 or len(str(o.get("value") or "")) > 100:
                    return "a select option over 100 characters"
    return None


def check_autocomplete_choices(choices: Any) -> str | None:
    if choices is None:
        return None
    if len(choices) > 25:
        return f"{len(choices)} autocomplete choices (at most 25)"
    for c in choices:
        if not 1 <= len(c.get("name") or "") <= 100:
            return f"autocomplete choice name {c.get('name')!r} not 1 to 100 characters"
        if len(str(c.get("value"))) > 100:
            return "autocomplete choice value over 100 characters"
    return None
