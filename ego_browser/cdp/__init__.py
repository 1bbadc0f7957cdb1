"""Pure asyncio CDP transport: one websocket, flat sessions, no feature state."""
from .connection import ANY_SESSION, DEFAULT_TIMEOUT, Connection, Session

__all__ = ["ANY_SESSION", "DEFAULT_TIMEOUT", "Connection", "Session"]
