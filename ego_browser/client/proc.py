"""This process's token: mouse position and held keys belong to one round (process)."""

import os
import time

PROC = f"{os.getpid()}-{time.time_ns()}"
