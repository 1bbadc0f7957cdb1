"""Pure asyncio CDP transport: one websocket, flat sessions, no feature state.

``protocol.py`` is the sans-I/O core, ``connection.py`` the asyncio shell over it, ``pipe.py``
the keeper socket's stream, ``errors.py`` the typed error replies.
"""
from .connection import ANY_SESSION, DEFAULT_TIMEOUT, Connection, Session

__all__ = ["ANY_SESSION", "DEFAULT_TIMEOUT", "Connection", "Session"]
