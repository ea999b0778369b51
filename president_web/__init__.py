"""The web page: watch recorded hands and play against agents in a browser (``president serve``).

:func:`create_app` builds the FastAPI app; :mod:`.views` turns game states into JSON,
:mod:`.seats` keeps what each player did last (drawn beside its seat), :mod:`.games` keeps
the sessions people play, :mod:`.watch` reads records files, :mod:`.agents` names the agents
a request may play, :mod:`.guard` checks every request before the app sees it, and
:mod:`.limits` states what the server holds and takes.
Install with ``pip install -e ".[web]"``.
"""

from .app import create_app

__all__ = ["create_app"]
