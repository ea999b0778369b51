"""Where Ray work runs: import Ray (the ``ray`` extra) and connect to a cluster, or start one here.

Both Ray commands (``president train --backend rllib`` and ``president evaluate --ray``)
go through :func:`connect`: without an address Ray starts a local instance on this
machine (local mode: the same code, one node); with ``--address HOST:PORT`` (a head
started by ``ray start --head``), ``auto`` (the cluster this machine already belongs
to) or ``ray://HOST:10001`` (Ray Client) it joins that cluster. What fails says what
to do: Ray not installed names the extra, an address nobody answers names the address
(checked with a plain TCP connection first, so a wrong address fails in seconds, not
after Ray's own minute of retries).
"""

from __future__ import annotations

import socket
from types import ModuleType
from typing import Any

INSTALL_HINT = 'pip install -e ".[ray]"'
CONNECT_TIMEOUT_S = 5.0


class RayUnavailable(RuntimeError):
    """Ray cannot be used: not installed, or the cluster at the given address cannot be reached."""


def import_ray() -> ModuleType:
    """The ``ray`` module, or :class:`RayUnavailable` saying how to install it."""
    try:
        import ray
    except ImportError as e:
        raise RayUnavailable(f"Ray is not installed ({e}); install the ray extra: {INSTALL_HINT}") from None
    return ray


def _host_port(address: str) -> tuple[str, int] | None:
    """(host, port) of ``HOST:PORT`` or ``ray://HOST:PORT``; None for ``auto`` and ``local``."""
    if address in ("auto", "local"):
        return None
    rest = address.split("://", 1)[1] if "://" in address else address
    host, sep, port = rest.rstrip("/").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise RayUnavailable(f"--address {address!r} is not HOST:PORT (e.g. 10.0.0.5:6379, the head started by "
                             "`ray start --head`), ray://HOST:10001 or auto")
    return host.strip("[]"), int(port)


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Raise :class:`RayUnavailable` unless something accepts a TCP connection at ``address``."""
    hp = _host_port(address)
    if hp is None:
        return
    try:
        with socket.create_connection(hp, timeout=timeout):
            pass
    except OSError as e:
        raise RayUnavailable(f"cannot reach a Ray cluster at {address}: {e.strerror or e} "
                             f"(start one with `ray start --head` on the head node, then pass the address it "
                             f"prints, or run without --address for local mode)") from None


def connect(address: str | None = None, num_cpus: int | None = None, **init_kwargs: Any) -> ModuleType:
    """Connect to the cluster at ``address``, or start a local Ray with ``num_cpus`` CPUs; return ``ray``.

    Already connected (``ray.is_initialized()``): nothing is started and the running
    instance is used, so tests and notebooks can start Ray once with their own settings
    (an ``address`` is still checked first: a wrong one is an error, whatever runs).
    """
    ray = import_ray()
    if address:
        check_reachable(address)
    if ray.is_initialized():
        return ray
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, **init_kwargs}
    if address:
        try:
            ray.init(address=address, **kwargs)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise RayUnavailable(f"cannot connect to the Ray cluster at {address}: {e}") from None
    else:
        ray.init(address="local", num_cpus=num_cpus, **kwargs)   # a new instance, never a cluster running here
    return ray


def cluster_cpus(ray: ModuleType) -> int:
    """The CPUs the connected cluster offers (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))
