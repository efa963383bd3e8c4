"""Running batches of games: as Ray tasks over a cluster, or in this process.

``address``: ``None`` starts a local Ray cluster (or uses the one ``ray.init`` already
started in this process), ``"auto"`` joins the cluster running on this machine (``ray
start``), ``"HOST:PORT"`` or ``"ray://HOST:PORT"`` a given one; ``"local-process"``
plays every batch in this process, without Ray (the reference for the output).
If this process has already called ``ray.init``, that cluster is used whatever
``address`` says (only ``"local-process"`` bypasses it), and it is left running.

Each batch is one task (one CPU, scheduled to spread over the nodes) with
``max_retries``: a task whose worker process dies (killed,
out of memory, its node lost) runs again, elsewhere if need be; its result reaches
the driver once, and the driver alone writes the output. Exceptions raised by the
games or policies are not retried (they would fail again): they stop the run.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional, Sequence, TypeVar

__all__ = ["LOCAL_PROCESS", "run_tasks"]

LOCAL_PROCESS = "local-process"

T = TypeVar("T")


def run_tasks(
    fn: Callable[..., T],
    shared: Sequence[Any],
    batches: Sequence[Sequence[Any]],
    *,
    address: Optional[str],
    max_retries: int = 3,
    num_cpus: float = 1.0,
) -> Iterator[tuple[int, T]]:
    """Calls ``fn(*shared, *batch)`` for every batch and yields ``(batch number,
    result)`` as results arrive (in any order with Ray). ``shared`` is put in Ray's
    object store once."""
    if address == LOCAL_PROCESS:
        for k, batch in enumerate(batches):
            yield k, fn(*shared, *batch)
        return
    import ray

    started = False
    if not ray.is_initialized():
        if address is None:
            ray.init(include_dashboard=False)
        else:
            ray.init(address=address)
        started = True
    try:
        # SPREAD: batches are alike and CPU-bound; spread them over the nodes.
        remote = ray.remote(fn).options(
            max_retries=max_retries, num_cpus=num_cpus, scheduling_strategy="SPREAD"
        )
        refs = [ray.put(x) for x in shared]
        pending = {remote.remote(*refs, *batch): k for k, batch in enumerate(batches)}
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    k = pending.pop(ref)
                    yield k, ray.get(ref)
        finally:
            for ref in pending:
                ray.cancel(ref)
    finally:
        if started:
            ray.shutdown()
