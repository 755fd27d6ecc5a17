"""The fake Discord's REST routes, one group per module, each with one job.

- ``application.py``: the bot itself (``/users``), its application, the gateway's address,
  its slash commands.
- ``channels.py``: channels and their messages, typing, threads, opening a DM.
- ``guilds.py``: servers and their members.
- the interaction endpoints (the callback, the token's webhook) belong to the interaction
  desk, ``../interactions.py``, which is a route group too.

Adding a group (say an Activity's ``POST /oauth2/token`` and ``GET /users/@me`` with a
``Bearer`` token):

1. Write ``routes/<name>.py`` with a class that takes the parts it needs (the ``World``,
   ``Faults``, ...) and has ``register(router)``, calling for each route
   ``router.add(method, pattern, handler)``. ``pattern`` is a regular expression for the
   whole path after ``/api/v10``, with named groups; a handler is
   ``async (request, match, body) -> JSON`` (None answers 204) and raises
   ``errors.HttpError`` where Discord refuses.
2. ``auth=`` says which ``Authorization`` scheme the route takes: ``"Bot"`` (the default:
   the bot's token, which the router checks), None (no header; the interaction endpoints),
   or another scheme such as ``"Bearer"``, whose credentials the group tells the router how
   to check with ``router.accept("Bearer", is_valid)`` in its ``register``. Routes with the
   same path and different schemes live side by side: ``GET /users/@me`` with ``Bot`` is
   the bot, with ``Bearer`` the person who authorised the Activity.
3. Export the class here and add it to the groups in ``FakeDiscord.__init__`` (``server.py``);
   what a test reads of it becomes a ``FakeDiscord`` property only if tests need it there.

Every request is recorded and meets the rate limits and faults before any route sees it.
"""

from .application import ApplicationRoutes
from .channels import ChannelRoutes
from .guilds import GuildRoutes

__all__ = ["ApplicationRoutes", "ChannelRoutes", "GuildRoutes"]
