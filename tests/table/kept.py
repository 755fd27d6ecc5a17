"""Playing as a family does, from the one hand message kept in the DMs (issue 25).

Before each turn the app reloads (the tablet slept, it was handed over), so every
ephemeral message is gone and only what stays in the DM is there to play from; and before
each turn the kept hand message is compared with the cards the mover holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cogs.table.hands import hand_cards
from tests.e2e.conftest import World
from tests.e2e.people import (
    GAME_OVER,
    NOT_YOUR_TURN,
    card_ids,
    cards_shown,
    choose_first,
    kept_hand,
    shows_choices,
    tap_card,
)
from tests.fakediscord import FakeMessage, Person

STILL_THERE = ("It's not your turn.", "Det er ikke din tur.")


@dataclass
class KeptHands:
    """A turn function for ``play_until_over`` that plays from the kept hand message."""

    world: World
    turns: int = 0
    stale: list[str] = field(default_factory=list)
    # (game, seat) -> every message a seat's hand was found in
    messages: dict[tuple[int, int], set[int]] = field(default_factory=dict)
    choices: list[FakeMessage] = field(default_factory=list)  # copies of what a tap showed
    choice_texts: list[str] = field(default_factory=list)
    after_moves: list[str] = field(default_factory=list)  # the message's words after a move

    async def turn(self, person: Person, board: FakeMessage) -> None:
        manager = self.world.bot.manager
        assert manager is not None and self.world.bot.desk is not None
        table = manager.table_for_channel(board.channel_id)
        if table is None or table.turn is None or table.seats[table.turn].user_id != person.id:
            return  # the turn moved on (a forced pass): the next board says whose it is
        game_id, seat = table.game_id, table.turn
        person.reload_app()
        fake = self.world.discord
        for held in table.held_seats(person.id):  # (the deal's hands may still be coming)
            await fake.wait_for(lambda s=held: kept_hand(person, game_id, s), 5,
                                f"{person.name}'s kept hand of seat {held}")
        hand = kept_hand(person, game_id, seat)
        assert hand is not None
        lang = self.world.bot.desk.prefs.user_lang(person.id, table.guild_id)
        truth = hand_cards(manager.seat_observation(game_id, seat), lang)
        self.turns += 1
        if cards_shown(hand) != truth:
            self.stale.append(f"turn {self.turns}: {cards_shown(hand)!r} for {truth!r}")
        self.messages.setdefault((game_id, seat), set()).add(hand.id)
        kept_before = [m.id for m in person.dms() if not m.ephemeral]
        await self._play(person, hand)
        assert [m.id for m in person.dms() if not m.ephemeral] == kept_before, \
            "a move changes the hand message; it sends no new DM"

    async def _play(self, person: Person, hand: FakeMessage) -> None:
        fake = self.world.discord
        for card in card_ids(hand):
            shown = await tap_card(person, hand, card)
            if shown.id != hand.id:  # refused, in words of its own
                if shown.content in (*STILL_THERE, NOT_YOUR_TURN, GAME_OVER):
                    return  # a forced pass moved the turn on
                continue
            assert shows_choices(shown), f"the tapped hand was out of date: {shown.content}"
            self.choice_texts.append(shown.content)
            self.choices.append(FakeMessage(dict(shown.data), list(shown.files)))
            await (await choose_first(person, shown)).wait_ack()
            await fake.wait_for(lambda: not shows_choices(hand), 5, "the new hand in place")
            self.after_moves.append(hand.content)
            return
        raise AssertionError(f"{person.name} found no playable card in {hand.content!r}")
