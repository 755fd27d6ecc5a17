"""A fake Discord for end-to-end tests: the real discord.py client talks to it over loopback.

    async with FakeDiscord() as discord:
        guild = discord.add_guild("Family")
        alice = discord.add_person("Alice")
        with discord.pointed_at():        # discord.py's REST base and gateway now point here
            ... start the bot with token discord.token ...
        reply = await (await alice.slash("sequence new", game="kids")).reply()
"""

from .chatter import Chatter
from .clock import TOKEN_LIFETIME, FakeClock
from .faults import Faults, HttpFault
from .guild import FakeGuild
from .installs import Reach, commands_visible
from .interaction import Interaction
from .limits import RateLimits, RouteLimit, is_interaction_endpoint, route_of
from .messages import FakeFile, FakeMessage
from .modals import FakeModal, TextField
from .people import ClientRefused, Person
from .private_channels import PrivateChannels
from .rest import USER_INSTALL_REFUSALS, RecordedRequest
from .server import FakeDiscord

__all__ = [
    "TOKEN_LIFETIME",
    "USER_INSTALL_REFUSALS",
    "Chatter",
    "ClientRefused",
    "FakeClock",
    "FakeDiscord",
    "FakeFile",
    "FakeGuild",
    "FakeMessage",
    "FakeModal",
    "Faults",
    "HttpFault",
    "Interaction",
    "Person",
    "PrivateChannels",
    "RateLimits",
    "Reach",
    "RecordedRequest",
    "RouteLimit",
    "TextField",
    "commands_visible",
    "is_interaction_endpoint",
    "route_of",
]
