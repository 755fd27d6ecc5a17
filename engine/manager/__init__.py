"""The async game manager: lobbies, turns, computer players, timers; see docs/MANAGER.md.

Everything the Discord layer does goes through ``GameManager`` (``manager.py``, a facade
over the owners beside it: ``table``, ``lobby``, ``step``, ``outbox``, ``computer``,
``due``, ``deadlines``, ``restore``, ``sharing``); it knows nothing of Discord.
"""

from .computer import Hint
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
    ShowAgain,
    TableView,
    TurnReminder,
    TurnStarted,
    TurnTimedOut,
)
from .lobby import MAX_CHILD_NAME, MAX_TURN_TIMER
from .manager import GameManager
from .seats import Seat
from .status import OPEN, Status
from .store import GameRecord, GuildSettings, Store
from .tally import Tally
from .timers import Clock, ManualClock, SystemClock

__all__ = [
    "COMPUTER_LEVELS",
    "MAX_CHILD_NAME",
    "MAX_TURN_TIMER",
    "OPEN",
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
    "ShowAgain",
    "Status",
    "Store",
    "SystemClock",
    "TableView",
    "Tally",
    "TurnReminder",
    "TurnStarted",
    "TurnTimedOut",
]
