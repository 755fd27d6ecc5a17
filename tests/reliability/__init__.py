"""Reliability: the bot under faults, abuse and load (issue 7).

``harness`` runs the real bot (in process or as ``python bot.py``) against a recording fake
Discord; ``truth`` reads what the database says really happened; ``leaks`` looks for hands
and deck orders where they do not belong; ``players`` take turns robustly, whatever the
bot's state. The tests here use them; ``tools/reliability.py`` runs the long versions.
"""
