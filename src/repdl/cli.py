"""The repdl command line: ``python -m repdl <command>``."""
import argparse
import sys

import torch

import repdl
from repdl.verify import pattern, tensor_hash


def demo(args) -> int:
    """Multiply two fixed matrices reproducibly and print the result's hash."""
    a = pattern(257, 513, salt=1)
    b = pattern(513, 129, salt=2)
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
