"""The drop-in mode's cost, measured side by side in one process.

Per intercepted call: the time of a call inside ``repdl.reproducible`` less
the same work outside it (torch's call, or RepDL's op called directly for a
rerouted one); target: under 20 us, both layers together.  Whole training
steps (forward, backward, torch.optim.AdamW) of a tiny HuggingFace GPT-2
and a plain torch.nn CNN under the mode against plain torch; target: the
GPT-2 step at most 2.5x plain torch's time (ratio >= 0.4), goal 1.5x.

    python bench/bench_dropin.py [--threads 2] [--quick]
"""
import argparse

import torch

from repdl.benchmarks.dropin import overhead_cases, per_call_overhead, step_cases
from repdl.benchmarks.timing import compare, header, row


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="one round (a smoke run)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    rounds = 1 if args.quick else 3
    print(f"# drop-in mode overhead per call (torch {torch.__version__}, {args.threads} threads)")
    for name, plain, moded in overhead_cases():
        t_plain, t_mode = per_call_overhead(plain, moded, rounds)
        print(f"{name:<34} outside {t_plain * 1e6:7.1f} us, inside {t_mode * 1e6:7.1f} us, "
              f"overhead {(t_mode - t_plain) * 1e6:6.1f} us")
    header("training steps: plain torch vs the same code under repdl.reproducible")
    for name, plain, moded in step_cases():
        t_plain, t_mode, ratio = compare(plain, moded, rounds=rounds, repeats=2)
        row(name, t_plain, t_mode, ratio, f"(mode takes {1 / ratio:.2f}x)")


if __name__ == "__main__":
    main()
