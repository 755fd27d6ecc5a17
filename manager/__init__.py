"""The async game manager: lobbies, turns, computer players, timers; see docs/MANAGER.md.

Everything the Discord layer does goes through ``GameManager`` (``manager.py``, a facade
over the owners beside it: ``table``, ``lobby``, ``step``, ``outbox``, ``computer``,
``due``, ``deadlines``, ``restore``, ``sharing``); it knows nothing of Discord.
"""

from store import OPEN, GameRecord, GuildSettings, Seat, Status, Store

from .computer import Hint
from .errors import ManagerError
from .events import (
    COMPUTER_LEVELS,
    Event,
    Followed,
    GameOver,
    GameStarted,
    HandChanged,
    Hearer,
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
from .offers import LobbyOffer, MoveGroup, Offer, SeatShown, TurnOffer
from .tally import Tally
from .timers import Clock, ManualClock, SystemClock

__all__ = [
    "COMPUTER_LEVELS",
    "MAX_CHILD_NAME",
    "MAX_TURN_TIMER",
    "OPEN",
    "Clock",
    "Event",
    "Followed",
    "GameManager",
    "GameOver",
    "GameRecord",
    "GameStarted",
    "GuildSettings",
    "HandChanged",
    "Hearer",
    "Hint",
    "Listener",
    "LobbyCancelled",
    "LobbyChanged",
    "LobbyOffer",
    "ManagerError",
    "ManualClock",
    "MoveGroup",
    "Moved",
    "Offer",
    "Player",
    "Seat",
    "SeatChanged",
    "SeatShown",
    "ShowAgain",
    "Status",
    "Store",
    "SystemClock",
    "TableView",
    "Tally",
    "TurnOffer",
    "TurnReminder",
    "TurnStarted",
    "TurnTimedOut",
]
