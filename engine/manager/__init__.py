"""The async game manager: lobbies, turns, computer players, timers; see docs/MANAGER.md.

Everything the Discord layer does goes through ``GameManager``; it knows nothing of
Discord.
"""

from .computer import Hint
from .core import MAX_CHILD_NAME, MAX_TURN_TIMER, GameManager
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
    TableView,
    TurnReminder,
    TurnStarted,
    TurnTimedOut,
)
from .seats import Seat
from .store import GameRecord, GuildSettings, Store
from .timers import Clock, ManualClock, SystemClock

__all__ = [
    "COMPUTER_LEVELS",
    "MAX_CHILD_NAME",
    "MAX_TURN_TIMER",
    "Clock",
    "Event",
    "GameManager",
    "GameOver",
    "GameRecord",
    "GameStarted",
    "GuildSettings",
    "HandChanged",
    "Hint",
    "Listener",
    "LobbyCancelled",
    "LobbyChanged",
    "ManagerError",
    "ManualClock",
    "Moved",
    "Player",
    "Seat",
    "SeatChanged",
    "Store",
    "SystemClock",
    "TableView",
    "TurnReminder",
    "TurnStarted",
    "TurnTimedOut",
]
