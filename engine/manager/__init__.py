"""The async game manager: lobbies, turns, computer players, timers; see docs/MANAGER.md.

Everything the Discord layer does goes through ``GameManager``; it knows nothing of
Discord.
"""

from .core import GameManager
from .errors import ManagerError
from .events import (
    COMPUTER_LEVELS,
    Event,
    GameOver,
    GameStarted,
    HandChanged,
    Listener,
    LobbyCancelled,
    LobbyChanged,
    Moved,
    Player,
    SeatChanged,
    SeatView,
    TableView,
    TurnReminder,
    TurnStarted,
    TurnTimedOut,
)
from .store import GuildSettings, Store
from .timers import Clock, ManualClock, SystemClock

__all__ = [
    "COMPUTER_LEVELS",
    "Clock",
    "Event",
    "GameManager",
    "GameOver",
    "GameStarted",
    "GuildSettings",
    "HandChanged",
    "Listener",
    "LobbyCancelled",
    "LobbyChanged",
    "ManagerError",
    "ManualClock",
    "Moved",
    "Player",
    "SeatChanged",
    "SeatView",
    "Store",
    "SystemClock",
    "TableView",
    "TurnReminder",
    "TurnStarted",
    "TurnTimedOut",
]
