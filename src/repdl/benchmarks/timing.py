"""Side-by-side timing.  The machine is shared and noisy, so absolute times
drift: every benchmark times torch and RepDL alternately in the same process
and reports the ratio of their best (minimum) times, which is what stays
stable under background load."""
import ctypes
import functools
import time

import torch


@functools.lru_cache(maxsize=None)
def steady_heap() -> bool:
    """Keep freed memory for the next allocation, as a training loop's
    steady state does (glibc only; elsewhere nothing changes).  glibc gives
    an allocation above its mmap threshold pages of its own, which the
    kernel faults in on first touch and takes back on free, and that
    threshold moves with the program's history (128 KiB up to 32 MiB): a
    4 MB softmax with backward measured 0.64 ms for torch in one comparison
    and 1.28-1.48 in the next ones of the same process, its fresh outputs
    page-faulted, for RepDL alike.  A fixed threshold of 1 GiB and no
    trimming take those page faults out of every measurement (torch
    0.57-0.60 ms in each of four).  True when glibc took the settings."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, TypeError):  # no mallopt (not glibc), or no C library handle (Windows)
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3  # malloc.h
    return bool(mallopt(m_mmap_threshold, 1 << 30)) and bool(mallopt(m_trim_threshold, (1 << 31) - 1))


def best_time(fn, repeats: int, min_seconds: float = 0.02) -> float:
    """Best per-call time over `repeats` batches of calls lasting at least
    min_seconds each (on a steady heap)."""
    steady_heap()
    fn()
    calls = 1
    while True:
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        if time.perf_counter() - t >= min_seconds:
            break
        calls *= 2
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - t) / calls)
    return best


def compare(torch_fn, repdl_fn, rounds: int = 5, repeats: int = 3):
    """(torch seconds, repdl seconds, throughput ratio torch/repdl), the best
    of `rounds` alternating measurements of each."""
    t_torch = t_repdl = float("inf")
    for _ in range(rounds):
        t_torch = min(t_torch, best_time(torch_fn, repeats))
        t_repdl = min(t_repdl, best_time(repdl_fn, repeats))
    return t_torch, t_repdl, t_torch / t_repdl


CASE_WIDTH = 40  # "log_softmax 64x128x128 causal +backward"


def header(title: str) -> None:
    print(f"# {title} (torch {torch.__version__}, {torch.get_num_threads()} threads)")
    print(f"{'case':<{CASE_WIDTH}} {'torch':>10} {'repdl':>10} {'ratio':>7}")


def _duration(seconds: float) -> str:
    # small calls in microseconds, where milliseconds would show 0.002
    return f"{seconds * 1e6:>8.2f}us" if seconds < 1e-4 else f"{seconds * 1e3:>8.3f}ms"


def row(case: str, t_torch: float, t_repdl: float, ratio: float, extra: str = "") -> None:
    print(f"{case:<{CASE_WIDTH}} {_duration(t_torch)} {_duration(t_repdl)} {ratio:>7.2f} {extra}")


def above(t_torch: float, t_repdl: float) -> str:
    """RepDL's time above torch's, the measure of a small call's cost."""
    return f"{(t_repdl - t_torch) * 1e6:+.2f}us above torch"
