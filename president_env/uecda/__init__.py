"""UECda: the UEC Computer Daihinmin Competition's TCP protocol (``shared/spec/uecda.md``, ``docs/uecda.md``).

* :mod:`.protocol` - tables and flags on the wire, exact reads, the 20070 handshake;
* :mod:`.tables` - card tables <-> card names, the info rows, play tables;
* :mod:`.server_net` - an asyncio server core with limits, and a blocking client connection.

None of it needs the rules engine; the match driver and the CLI commands build on it.
"""

from .protocol import (
    ACCEPTED,
    DEFAULT_PORT,
    GAME_ON,
    GAME_OVER,
    MATCH_OVER,
    PROTOCOL_VERSION,
    REJECTED,
    UecdaProtocolError,
)

__all__ = ["ACCEPTED", "DEFAULT_PORT", "GAME_ON", "GAME_OVER", "MATCH_OVER", "PROTOCOL_VERSION", "REJECTED",
           "UecdaProtocolError"]
