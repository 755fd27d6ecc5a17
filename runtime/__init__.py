"""The bot as a running service, around the Discord adapter: its settings (``settings``,
which tools import without discord.py), its log (``logs``), its link to Discord
(``link``: where Discord is, reconnecting, one line per fault), its database at start
(``database``: waiting for it, one line) and its invite link (``invite``). ``bot.py``
composes these with the store, the manager and the cogs.
"""
