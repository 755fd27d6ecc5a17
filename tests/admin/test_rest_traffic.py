"""How the metrics name Discord's REST traffic: route classes without ids or tokens, the
scope of a 429, and when an interaction was made (its id)."""

from __future__ import annotations

import pytest
from multidict import CIMultiDict

from runtime.traffic import created_at, interaction_of, route_class, scope_of


@pytest.mark.parametrize(("method", "path", "route"), [
    ("POST", "/api/v10/channels/123/messages", "POST /channels/{id}/messages"),
    ("PATCH", "/api/v10/channels/123/messages/456", "PATCH /channels/{id}/messages/{id}"),
    ("POST", "/api/v10/interactions/99/a-Secret_token/callback",
     "POST /interactions/{id}/{token}/callback"),
    ("PATCH", "/api/v10/webhooks/7/aToken/messages/@original",
     "PATCH /webhooks/{id}/{token}/messages/@original"),
    ("put", "/api/v10/channels/1/messages/2/reactions/%F0%9F%A6%81/@me",
     "PUT /channels/{id}/messages/{id}/reactions/{emoji}/@me"),
    ("GET", "/proxy/api/v9/gateway/bot", "GET /gateway/bot"),
    ("GET", "/api/v10/applications/5/activity-instances/i-1276591926470938706-gc-9-8",
     "GET /applications/{id}/activity-instances/{instance}"),
    ("GET", "/api/v10/applications/5/activity-instances/made-up-by-anyone",
     "GET /applications/{id}/activity-instances/{instance}"),
])
def test_a_route_class_keeps_the_route_and_drops_ids_tokens_and_emoji(
        method: str, path: str, route: str) -> None:
    assert route_class(method, path) == route


def test_no_token_survives_in_a_route_class() -> None:
    assert "Secret" not in route_class("POST", "/api/v10/interactions/1/Secret/callback")


@pytest.mark.parametrize(("headers", "scope"), [
    ({"X-RateLimit-Scope": "user"}, "user"),
    ({"x-ratelimit-scope": "Shared"}, "shared"),
    ({"X-RateLimit-Scope": "global", "X-RateLimit-Global": "true"}, "global"),
    ({"X-RateLimit-Global": "true"}, "global"),
    ({"Via": "1.1 google"}, "unknown"),  # Cloudflare's own 429 says no scope
])
def test_a_429_is_given_discords_scope(headers: dict[str, str], scope: str) -> None:
    assert scope_of(CIMultiDict(headers)) == scope


def test_an_interaction_is_dated_by_its_id() -> None:
    # Discord's own example snowflake: 2016-04-30 11:18:25.796 UTC
    assert created_at(175928847299117063) == pytest.approx(1462015105.796)
    assert interaction_of("/api/v10/interactions/175928847299117063/tok/callback"
                          ) == 175928847299117063
    assert interaction_of("/api/v10/webhooks/1/tok/messages/@original") is None
