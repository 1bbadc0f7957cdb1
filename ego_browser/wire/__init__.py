"""The contract between a round and the host, imported by both sides (``client/`` and ``host/``):
``protocol`` (frames, envelope, request deadlines), ``lockfile`` (finding the running host:
its lock, pid and socket), ``files`` (the file-list rule). Imports nothing of ours but
``errors``, ``config`` and ``jsonsafe`` (``tests/project/test_layers.py``).
"""
