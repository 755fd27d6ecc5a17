"""The Activity's doors: how much a stranger may make the bot ask of Discord.

Once the Activity's URL mapping exists its address is public: Discord's proxy forwards
whatever anyone sends, and a person with a valid session may send whatever they like. Two
doors cost a request to Discord each time they are knocked on: a login code (``POST
/oauth2/token``, against what Discord allows the application's OAuth2 requests) and a
hello naming an instance (``GET /applications/{app}/activity-instances/{id}``, against the
bot token's REST budget, which every family's boards share). Each is a ``Door``: a token
bucket in all, one per source (a login: the client's address, when a proxy the admin
trusts says it) or per person (a look-up), and shut for as long as Discord says when it
answers 429. Beyond them a request is refused at once, and Discord is asked nothing.

A source is known only from a proxy the admin names (``Sources``): a header anyone can
write is no source, and the peer's own address is the tunnel or Discord's proxy, the same
for every family. Without a trusted proxy every login shares the bucket in all.

``Limits`` are the defaults (``runtime/settings.py`` reads the admin's, with the same
names: ``ACTIVITY_LOGINS_PER_MINUTE`` is ``logins_per_minute``).
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from aiohttp import web

KEYS_HELD = 10_000  # sources or people whose bucket is kept at most (the least lately used go)


@dataclass(frozen=True)
class Limits:
    """What a stranger may make the bot ask of Discord, and the sockets a page may hold.
    A rate of 0 turns that bucket off."""

    logins_per_minute: float = 120.0  # logins in all (each one a request to Discord)
    login_burst: int = 30
    source_logins_per_minute: float = 60.0  # from one source (a trusted proxy says which)
    source_login_burst: int = 15
    lookups_per_minute: float = 600.0  # instance look-ups in all (the bot token's budget)
    lookup_burst: int = 100
    person_lookups_per_minute: float = 6.0  # one person's
    person_lookup_burst: int = 6
    sockets_per_person: int = 4  # a phone, a tablet, a reload under way, one to spare
    silent_sockets: int = 1000  # sockets open that have not said hello yet, in all
    trusted_proxies: tuple[str, ...] = ()  # addresses or networks (10.0.0.0/8)
    client_ip_header: str = "X-Forwarded-For"  # where a trusted proxy says the client
    # (not settings: what the tests shorten)
    silent_grace: float = 1.0  # seconds a silent socket has before it may be closed
    hello_seconds: float = 10.0  # seconds a new socket has to say hello
    incident_quiet: float = 10.0  # seconds without a refusal that end an incident's log


class Bucket:
    """A token bucket: ``rate`` a second, at most ``burst`` at once."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate, self.burst = rate, max(1, burst)
        self._tokens, self._at = float(self.burst), now

    def wait(self, now: float) -> float:
        """Seconds until a token is there (0: one is there now)."""
        self._tokens = min(float(self.burst), self._tokens + (now - self._at) * self.rate)
        self._at = now
        return 0.0 if self._tokens >= 1 else (1 - self._tokens) / self.rate

    def take(self) -> None:
        self._tokens -= 1


class Door:
    """A bucket in all and one per key (a source, a person; none when the key is None),
    shut until a time Discord said (its 429)."""

    def __init__(self, per_minute: float, burst: int, key_per_minute: float, key_burst: int,
                 *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._all = Bucket(per_minute / 60, burst, clock()) if per_minute > 0 else None
        self._key_rate, self._key_burst = key_per_minute / 60, key_burst
        self._keys: OrderedDict[Hashable, Bucket] = OrderedDict()
        self._shut_until = 0.0

    def let_in(self, key: Hashable | None) -> tuple[float, str]:
        """(0, "") and a token taken from each bucket, or how long to wait and why not
        (``"shut"``: Discord said to wait; ``"key"``: this key's bucket; ``"all"``)."""
        now = self._clock()
        if now < self._shut_until:
            return self._shut_until - now, "shut"
        bucket = self._bucket(key, now)
        mine = bucket.wait(now) if bucket is not None else 0.0
        if mine:
            return mine, "key"
        everyone = self._all.wait(now) if self._all is not None else 0.0
        if everyone:
            return everyone, "all"
        for taken in (bucket, self._all):
            if taken is not None:
                taken.take()
        return 0.0, ""

    def shut_for(self, seconds: float) -> None:
        """Discord said to wait ``seconds``: nothing goes through until then."""
        self._shut_until = max(self._shut_until, self._clock() + seconds)

    def _bucket(self, key: Hashable | None, now: float) -> Bucket | None:
        if key is None or self._key_rate <= 0:
            return None
        bucket = self._keys.get(key)
        if bucket is None:
            bucket = self._keys[key] = Bucket(self._key_rate, self._key_burst, now)
            if len(self._keys) > KEYS_HELD:
                self._keys.popitem(last=False)
        else:
            self._keys.move_to_end(key)
        return bucket


def reason(why: str, who: str) -> tuple[str, str]:
    """A ``Door.let_in``'s no in the log's words: (why, who), ``who`` kept only for the
    bucket that was its own ("from 10.0.0.7", "for user 42")."""
    if why == "shut":
        return "Discord asked to wait (429)", ""
    return ("over the limit", who) if why == "key" else ("over the limit in all", "")


def retry_after(seconds: float) -> int:
    """A wait as a ``Retry-After`` header says it: whole seconds, at least 1."""
    return max(1, math.ceil(seconds))


Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def networks(trusted: Iterable[str]) -> tuple[Network, ...]:
    """The trusted proxies as networks (an address is a network of one); ``ValueError``
    names one that is neither."""
    return tuple(ipaddress.ip_network(t.strip(), strict=False) for t in trusted if t.strip())


class Sources:
    """Who sent a request, as far as anyone can tell: the client's address as a proxy the
    admin trusts reports it (``header``, e.g. ``X-Forwarded-For``, read from the right:
    the last address no trusted proxy wrote), or the peer itself when it is no trusted
    proxy (it came straight here). With no trusted proxy: nobody (None), since the peer is
    then the tunnel or Discord's proxy, the same for everyone."""

    def __init__(self, trusted: Iterable[str], header: str = "X-Forwarded-For") -> None:
        self._trusted = networks(trusted)
        self._header = header

    def of(self, request: web.BaseRequest) -> str | None:
        if not self._trusted:
            return None
        peer = _address(request.remote or "")
        if peer is None:
            return None
        if not self._trusts(peer):
            return str(peer)
        said = [a.strip() for value in request.headers.getall(self._header, [])
                for a in value.split(",")]
        found = None
        for text in reversed([a for a in said if a]):
            address = _address(text)
            if address is None:
                return None  # (a proxy that writes what is not an address tells nothing)
            found = address
            if not self._trusts(address):
                break
        return str(found) if found is not None else None

    def _trusts(self, address: Address) -> bool:
        return any(address.version == n.version and address in n for n in self._trusted)


def _address(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None)  # (::ffff:10.0.0.7 is 10.0.0.7)
    return mapped if isinstance(mapped, ipaddress.IPv4Address) else address
