"""The repdl command line: ``python -m repdl <command>``."""
import argparse
import sys

import torch

import repdl
from repdl.verify import tensor_hash


def _deterministic_matrix(rows, cols, salt):
    """Values in [-0.5, 0.5) from an integer hash of the position: the same
    on every machine without any floating-point step but one exact scaling."""
    i = torch.arange(rows * cols, dtype=torch.int64) + salt * 1_000_003
    h = (i * 2654435761 + 12345) % (1 << 24)
    return (h.to(torch.float32) * (2.0 ** -24) - 0.5).reshape(rows, cols)


def demo(args) -> int:
    """Multiply two fixed matrices reproducibly and print the result's hash."""
    a = _deterministic_matrix(257, 513, 1)
    b = _deterministic_matrix(513, 129, 2)
    c = repdl.mm(a, b)
    print(f"repdl {repdl.__version__}, torch {torch.__version__}, isa {repdl.isa()}, "
          f"threads {torch.get_num_threads()}")
    print(f"mm(257x513, 513x129) sha256 {tensor_hash(c)}")
    print(f"torch.mm for comparison  {tensor_hash(torch.mm(a, b))}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="repdl", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help=demo.__doc__).set_defaults(func=demo)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
