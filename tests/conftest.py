"""Settings for the whole suite.

The README runs the suite on two workers (pytest-xdist, ``-n 2``), one a core. Each worker keeps the
thread pools of BLAS and OpenMP (NumPy's matrix products, torch) to one thread: two workers each
spinning two such threads on two cores slowed the heuristic's small matrix products a hundredfold. numba's
own threads (``core.set_threads``, ``tests/test_threads.py``) are not these pools and stay as they are.
"""

from __future__ import annotations

import os

if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("OMP_NUM_THREADS", "1")          # torch reads it when first imported
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)                                   # pools already loaded (NumPy's OpenBLAS)
