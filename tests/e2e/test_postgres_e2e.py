"""The whole bot on PostgreSQL (``DATABASE_URL``), through the fake Discord: a game from
the lobby to the final board with a restart in the middle, and no SQLite file made."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import running_bot
from tests.e2e.people import boards, play_until_over, turn_from_dm
from tests.e2e.test_restart import begun
from tests.fakediscord import FakeDiscord


async def test_a_whole_game_on_postgresql_survives_a_restart(tmp_path: Path,
                                                             postgres_url: str) -> None:
    db = tmp_path / "sequence.db"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Family")
        alice, bob = fake.add_person("Alice"), fake.add_person("Bob")
        channel = guild.channel_id
        with fake.pointed_at():
            async with running_bot(fake, guild, db, database_url=postgres_url) as bot:
                assert bot.store is not None and bot.store.backend == "postgres"
                board, mover, _ = await begun(fake, alice, bob)
                await turn_from_dm(mover, board)
                await fake.wait_for(lambda: len(boards(fake, channel)) >= 2, 5, "a move")
                ply = bot.manager.get(bot.manager.tables()[0].game_id).ply  # type: ignore[union-attr]
            async with running_bot(fake, guild, db, database_url=postgres_url) as bot:
                assert bot.manager is not None
                table = bot.manager.tables()[0]
                assert table.status == "playing" and table.ply == ply
                final = await play_until_over(fake, channel, [alice, bob], turn_from_dm)
                assert any(c.startswith("seq:rematch:") for c in final.custom_ids())
                record = await bot.manager.load_record(table.game_id)
                assert record is not None and record.status == "finished"
    assert not db.exists() and not any(tmp_path.glob("*.db*")), "no SQLite file on PostgreSQL"
