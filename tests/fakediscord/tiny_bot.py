"""A throwaway bot with one of each thing the real bot does, to test the fake Discord."""

from __future__ import annotations

import asyncio
import io
import re
import struct
import zlib

import discord
from discord import app_commands
from discord.ext import commands


def tiny_png() -> bytes:
    """A 1x1 PNG made by hand (no Pillow needed to test the transport)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b""))


class Press(discord.ui.DynamicItem[discord.ui.Button], template=r"tiny:press:(?P<n>\d+)"):
    """A button that survives restarts: its count lives in the custom_id."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"Pressed {n}", custom_id=f"tiny:press:{n}"))
        self.n = n

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item,
                             match: re.Match[str]) -> Press:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(Press(self.n + 1))
        await interaction.response.edit_message(content=f"pressed {self.n + 1}", view=view)


class Pick(discord.ui.DynamicItem[discord.ui.Select], template=r"tiny:pick"):
    def __init__(self) -> None:
        super().__init__(discord.ui.Select(custom_id="tiny:pick", options=[
            discord.SelectOption(label=f"Option {i}", value=str(i)) for i in range(25)]))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item,
                             match: re.Match[str]) -> Pick:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        await interaction.followup.send(f"picked {interaction.data['values'][0]}", ephemeral=True)


class ChildName(discord.ui.Modal, title="Add a child"):
    """The family-seat modal of issue 20, in miniature: a name, and an optional note."""

    name: discord.ui.TextInput[ChildName] = discord.ui.TextInput(
        label="Child's name", custom_id="tiny:child:name", min_length=1, max_length=20)
    note: discord.ui.TextInput[ChildName] = discord.ui.TextInput(
        label="Note", custom_id="tiny:child:note", style=discord.TextStyle.paragraph,
        required=False, max_length=100, default="plays blue")

    def __init__(self, answer: str) -> None:
        super().__init__(custom_id="tiny:child")
        self.answer = answer

    async def on_submit(self, interaction: discord.Interaction) -> None:
        text = f"added {self.name.value} ({self.note.value})"
        if self.answer == "update":  # opened from the lobby's button: the lobby changes
            await interaction.response.edit_message(content=f"lobby: {self.name.value}",
                                                    view=None)
        elif self.answer == "defer":
            await interaction.response.defer(thinking=True)
            await interaction.edit_original_response(content=text)
        else:
            await interaction.response.send_message(text, ephemeral=self.answer == "secret")


class NameWithLabel(discord.ui.Modal, title="Add a child"):
    """The newer modal shape: a text display, then a label (type 18) around the input."""

    intro = discord.ui.TextDisplay("Who plays with you?")
    name: discord.ui.Label[NameWithLabel] = discord.ui.Label(
        text="Child's name", description="As the board should show it",
        component=discord.ui.TextInput(custom_id="tiny:label:name", max_length=20))

    async def on_submit(self, interaction: discord.Interaction) -> None:
        text_input = self.name.component
        assert isinstance(text_input, discord.ui.TextInput)
        await interaction.response.send_message(f"added {text_input.value}")


class AddChild(discord.ui.DynamicItem[discord.ui.Button], template=r"tiny:add-child"):
    def __init__(self) -> None:
        super().__init__(discord.ui.Button(label="Add a child", custom_id="tiny:add-child"))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item,
                             match: re.Match[str]) -> AddChild:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(ChildName("update"))


class Family(commands.Cog):
    """Modals: from a slash command and from a button."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(description="Add a child by name")
    async def child(self, interaction: discord.Interaction, answer: str = "reply") -> None:
        await interaction.response.send_modal(ChildName(answer))

    @app_commands.command(description="Add a child, with a labelled modal")
    async def child_label(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NameWithLabel())

    @app_commands.command(description="A lobby with a button that opens a modal")
    async def lobby(self, interaction: discord.Interaction) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(AddChild())
        await interaction.response.send_message("lobby", view=view)

    @app_commands.command(description="A modal Discord refuses")
    async def badmodal(self, interaction: discord.Interaction) -> None:
        modal = ChildName("reply")
        modal.title = "A title much longer than the forty-five allowed"
        try:
            await interaction.response.send_modal(modal)
        except discord.HTTPException as exc:
            self.bot.modal_error = exc.code  # type: ignore[attr-defined]


class Norwegian(app_commands.Translator):
    async def translate(self, string: app_commands.locale_str, locale: discord.Locale,
                        context: app_commands.TranslationContextTypes) -> str | None:
        words = {"ping": "ping", "Answers pong": "Svarer pong"}
        return words.get(string.message) if locale is discord.Locale.norwegian else None


class Tiny(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="ping", description=app_commands.locale_str("Answers pong"))
    async def ping(self, interaction: discord.Interaction,
                   n: app_commands.Range[int, 1, 10] = 1) -> None:
        await interaction.response.send_message(f"pong {n}")

    @app_commands.command(description="Sends you a DM")
    async def dm(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.user.send("hello by DM", view=_press_view(0))
        except discord.Forbidden as exc:
            await interaction.response.send_message(f"closed {exc.code}", ephemeral=True)
            return
        await interaction.response.send_message("sent", ephemeral=True)

    @app_commands.command(description="A secret")
    async def secret(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("only you", ephemeral=True)

    @app_commands.command(description="A picture")
    async def picture(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            "a picture", file=discord.File(io.BytesIO(tiny_png()), "dot.png",
                                           description="one green dot"))

    @app_commands.command(description="Buttons")
    async def buttons(self, interaction: discord.Interaction) -> None:
        view = _press_view(0)
        view.add_item(Pick())
        await interaction.response.send_message("pressed 0", view=view)

    @app_commands.command(description="Slow work")
    async def slow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await asyncio.sleep(0.05)
        await interaction.edit_original_response(content="done slowly")
        await interaction.followup.send("and a followup", file=discord.File(
            io.BytesIO(tiny_png()), "late.png"))

    @app_commands.command(description="Answers too late")
    async def late(self, interaction: discord.Interaction) -> None:
        await asyncio.sleep(0.3)
        try:
            await interaction.response.send_message("too late")
        except discord.NotFound as exc:
            self.bot.late_error = exc.code  # type: ignore[attr-defined]

    @app_commands.command(description="Posts in the channel")
    async def post(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True)
        message = await interaction.channel.send("first")  # type: ignore[union-attr]
        await message.edit(content="edited")
        await interaction.followup.send("posted", ephemeral=True)

    @app_commands.command(description="Pick an animal")
    async def pick(self, interaction: discord.Interaction, animal: str) -> None:
        await interaction.response.send_message(f"you picked {animal}")

    @pick.autocomplete("animal")
    async def pick_animal(self, interaction: discord.Interaction, current: str
                          ) -> list[app_commands.Choice[str]]:
        animals = ["lion", "lamb", "camel", "dragon", "unicorn"]
        return [app_commands.Choice(name=a.title(), value=a) for a in animals if current in a]


def _press_view(n: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(Press(n))
    return view


class TinyBot(commands.Bot):
    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix=commands.when_mentioned,
                         intents=discord.Intents.default(), guild_ready_timeout=0.01)
        self.guild_id = guild_id
        self.late_error: int | None = None
        self.modal_error: int | None = None

    async def setup_hook(self) -> None:
        await self.add_cog(Tiny(self))
        await self.add_cog(Family(self))
        self.add_dynamic_items(Press, Pick, AddChild)
        await self.tree.set_translator(Norwegian())
        guild = discord.Object(self.guild_id)
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)
