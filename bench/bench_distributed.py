"""repdl.distributed against torch.distributed on gloo over loopback
(spawned processes, 1 thread each).  Targets: the deterministic all-reduce
of 10M floats at world size 4 at least 0.5x the throughput of
dist.all_reduce; a DDP training step at world size 2 at most 1.3x the
time of torch's DDP with the same model.

    python bench/bench_distributed.py [--world 4] [--numel 10000000] [--quick]
"""
import argparse

from repdl.benchmarks import distributed


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world", type=int, default=4)
    parser.add_argument("--numel", type=int, default=10_000_000)
    parser.add_argument("--quick", action="store_true", help="1M floats, fewer repetitions")
    args = parser.parse_args()
    numel = 1_000_000 if args.quick else args.numel
    times = distributed.allreduce(args.world, numel, 3 if args.quick else 5)
    base = times["torch dist.all_reduce"]
    print(f"# all-reduce of {numel} float32, world size {args.world}, gloo")
    for name, t in times.items():
        print(f"{name:<24} {t * 1e3:9.1f} ms   throughput vs torch {base / t:5.2f}")
    steps = distributed.ddp_step(2, repeats=5 if args.quick else 10)
    print("# DDP training step (MLP 512-512-512-10, batch 64 per rank), world size 2, gloo")
    for name, t in steps.items():
        print(f"{name:<24} {t * 1e3:9.2f} ms   time vs torch DDP {t / steps['torch DDP']:5.2f}x")


if __name__ == "__main__":
    main()
