"""What one table plays by beyond the game's options: its turn timer and what the timer does.

A table starts with its server's settings, plus the host's own choices for that game (today
one: a turn timer of its own, or none, for a game with a small child). From then on the
table keeps them: a change of the server's settings reaches a running game only where the
game did not choose for itself (``following``), so an admin setting a timer for the server
never starts timing a game whose host said "no timer".

One field holds each rule. The store keeps only the host's choice (``games.turn_timer``,
``host_timer``: 0 for none, NULL for "the server's"); the rest is the server's, read with
the table, so a restarted process or another one gets the same rules back.

>>> server = GuildSettings(1, turn_timer=120.0)
>>> HouseRules.of(server, None).turn_timer          # the server's
120.0
>>> untimed = HouseRules.of(server, 0)              # the host's own: no timer
>>> untimed.turn_timer is None, untimed.host_timer
(True, 0)
>>> untimed.following(GuildSettings(1, turn_timer=60.0, timeout_action="skip"))
HouseRules(turn_timer=None, timeout_action='skip', absences_to_free=3, own_timer=True)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from store import GuildSettings


@dataclass(frozen=True)
class HouseRules:
    """A table's rules around the game. ``turn_timer``: seconds per turn, None for no
    timer; ``own_timer``: the host chose this game's timer (a server change leaves it)."""

    turn_timer: float | None = None
    timeout_action: str = "computer"
    absences_to_free: int = 3
    own_timer: bool = False

    @classmethod
    def of(cls, server: GuildSettings, host_timer: float | None) -> HouseRules:
        """A table's rules: its server's settings, with the host's own timer if the host
        chose one (``host_timer``: seconds, 0 for none, None for the server's)."""
        rules = cls().following(server)
        if host_timer is None:
            return rules
        return replace(rules, turn_timer=host_timer or None, own_timer=True)

    def following(self, server: GuildSettings) -> HouseRules:
        """These rules after the server's settings became ``server``: the server's,
        wherever the game did not choose for itself."""
        return replace(self, timeout_action=server.timeout_action,
                       absences_to_free=server.absences_to_free,
                       turn_timer=self.turn_timer if self.own_timer else server.turn_timer)

    @property
    def host_timer(self) -> float | None:
        """The host's own timer as the store keeps it: seconds, 0 for none, None when the
        game follows the server."""
        if not self.own_timer:
            return None
        return self.turn_timer or 0


__all__ = ["HouseRules"]
