"""Short ways to finish games through Discord, so stats have something to count."""

from __future__ import annotations

from tests.e2e.conftest import World
from tests.e2e.people import begin_game, boards, final_board
from tests.fakediscord import FakeMessage, Person


async def lobby_of(world: World, host: Person, game: str = "kids", **options: object
                   ) -> FakeMessage:
    return await (await host.slash("sequence new", game=game, **options)).reply()


async def seat(world: World, lobby: FakeMessage, person: Person) -> None:
    join = next(b for b in lobby.buttons() if b["custom_id"].endswith(":join"))
    await (await person.click(lobby, join["custom_id"])).wait_ack()
    await world.discord.wait_for(lambda: person.name in lobby.text, 5, f"{person.name} seated")


async def add_computer(world: World, lobby: FakeMessage, host: Person, level: str) -> None:
    before = lobby.text.count("(")
    button = next(b for b in lobby.buttons() if b["custom_id"].endswith(f":cpu-{level}"))
    await (await host.click(lobby, button["custom_id"])).wait_ack()
    await world.discord.wait_for(lambda: lobby.text.count("(") > before, 5, "computer seated")


async def seated(world: World, host: Person, *guests: Person, game: str = "kids",
                 **options: object) -> FakeMessage:
    """A lobby opened by ``host`` with ``guests`` sat down: the lobby message."""
    lobby = await lobby_of(world, host, game, **options)
    for guest in guests:
        await seat(world, lobby, guest)
    return lobby


async def started(world: World, host: Person, *guests: Person, game: str = "kids",
                  **options: object) -> None:
    """``host`` and ``guests`` sit down and ``host`` starts; the first board is out."""
    await begin_game(world.discord, host, *guests, game=game, **options)


async def start(world: World, lobby: FakeMessage, host: Person) -> None:
    button = next(b for b in lobby.buttons() if b["custom_id"].endswith(":start"))
    await (await host.click(lobby, button["custom_id"])).wait_ack()
    await world.discord.wait_for(lambda: boards(world.discord, world.guild.channel_id), 5,
                                 "the first board")


async def won_by_resignation(world: World, winner: Person, loser: Person, game: str = "kids"
                             ) -> FakeMessage:
    """``winner`` hosts, ``loser`` joins and resigns at once: a finished game, a result."""
    fake, channel = world.discord, world.guild.channel_id
    before = len(fake.visible_messages(channel))
    await started(world, winner, loser, game=game)
    await (await loser.slash("sequence resign")).wait_ack()

    def the_end() -> FakeMessage | None:
        new = fake.visible_messages(channel)[before:]
        return next((m for m in new if m in boards(fake, channel)
                     and any(c.startswith("seq:rematch:") for c in m.custom_ids())), None)

    return await fake.wait_for(the_end, 5, "the final board")


__all__ = ["add_computer", "final_board", "lobby_of", "seat", "seated", "start", "started",
           "won_by_resignation"]
