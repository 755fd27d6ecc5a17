"""A throwaway bot whose commands go where a user-installed app goes (group DMs, DMs
between people, servers without the bot), to test the fake Discord's installs."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

EVERYWHERE = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True)
BOTH_INSTALLS = app_commands.AppInstallationType(guild=True, user=True)


def where(interaction: discord.Interaction) -> str:
    """What the bot read of the interaction: its context and who authorized it."""
    context = interaction.context
    place = ("guild" if context.guild else "bot_dm" if context.dm_channel
             else "private" if context.private_channel else "none")
    owners = ",".join(f"{k}={v}" for k, v in sorted(interaction._integration_owners.items()))
    return f"{place} owners {owners} guild {interaction.guild_id}"


class Wave(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]],
           template=r"roam:wave"):
    """A button anybody in the channel may press."""

    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Wave", custom_id="roam:wave"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction,
                             item: discord.ui.Item[discord.ui.View], match: object) -> Wave:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"wave by {interaction.user.id}: "
                                                + where(interaction))


class Ask(discord.ui.Modal, title="A question"):
    answer: discord.ui.TextInput[Ask] = discord.ui.TextInput(label="Answer",
                                                             custom_id="roam:answer")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"{self.answer.value}: {where(interaction)}")


class Roaming(commands.Cog):
    def __init__(self, bot: RoamingBot) -> None:
        self.bot = bot

    @app_commands.command(description="Says where it was used")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def roam(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Wave())
        await interaction.response.send_message(where(interaction), view=view)

    @app_commands.command(description="Asks in a modal")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def ask(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(Ask())

    @app_commands.command(description="Only where a server installed the app")
    async def homebody(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("home")

    @app_commands.command(description="Posts in the channel with the bot's token")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def post(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        try:
            await interaction.channel.send("by the bot's token")  # type: ignore[union-attr]
        except discord.HTTPException as exc:
            self.bot.codes.append(exc.code)
            await interaction.followup.send(f"refused {exc.code}", ephemeral=True)
            return
        await interaction.followup.send("posted", ephemeral=True)

    @app_commands.command(description="Sends n follow-ups")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def spam(self, interaction: discord.Interaction, n: int) -> None:
        await interaction.response.defer()
        for i in range(n):
            try:
                await interaction.followup.send(f"follow-up {i + 1}")
                self.bot.codes.append(0)
            except discord.HTTPException as exc:
                self.bot.codes.append(exc.code)

    @app_commands.command(description="Defers, and answers when the test says")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def later(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        self.bot.waiting.append(interaction)

    @app_commands.command(description="Opens the Activity")
    @app_commands.allowed_installs(guilds=True, users=True)
    @app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
    async def play(self, interaction: discord.Interaction) -> None:
        await interaction.response.launch_activity()


class RoamingBot(commands.Bot):
    """Syncs its commands globally (user installs are global only)."""

    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned,
                         intents=discord.Intents.default(), guild_ready_timeout=0.01)
        self.codes: list[int] = []  # each follow-up's or post's outcome (0: sent)
        self.waiting: list[discord.Interaction] = []  # deferred by /later

    async def setup_hook(self) -> None:
        await self.add_cog(Roaming(self))
        self.add_dynamic_items(Wave)
        await self.tree.sync()
