"""`repdl demo`: train the demo CNN reproducibly and print its hashes."""
import torch

import repdl
from repdl.cli import matrix, progress, task

# The two plain-PyTorch settings of --compare-torch: what a laptop and a
# server differ in (thread count and ATen's instruction set).
TORCH_SETTINGS = (
    matrix.Variant("1 thread, ATen default", {"OMP_NUM_THREADS": "1", "ATEN_CPU_CAPABILITY": "default"}, ""),
    matrix.Variant("2 threads, ATen auto", {"OMP_NUM_THREADS": "2"}, ""),
)


def add_parser(sub):
    p = sub.add_parser("demo", help="train a small CNN on real digits reproducibly and print its hashes",
                       description="Train a small CNN on scikit-learn's bundled 8x8 digits with RepDL and print "
                                   "the initial and trained model hashes, the test accuracy, loss and logits hash, "
                                   "and a batch-invariance check.")
    p.add_argument("--epochs", type=int, default=15, help="training epochs (default 15)")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights, the split and the order (default 0)")
    p.add_argument("--steps", type=int, default=None, help="stop after this many training steps (quick checks)")
    p.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    p.add_argument("--compare-torch", action="store_true",
                   help="also train the same model with plain PyTorch under two settings, in fresh processes")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the text report")
    p.set_defaults(func=run)


def check_device(device):
    kind = device.split(":")[0]
    if kind == "cpu" or (kind == "cuda" and torch.cuda.is_available()):
        return device
    available = "cpu, cuda" if torch.cuda.is_available() else "cpu"
    raise task.CliError(f"device {device!r} is not available here; available: {available}")


def torch_invariance(trained_state, test_x):
    """task.alone_equal_batch for plain torch.nn with the same trained weights."""
    model = task.cnn(torch.nn).to(test_x.device)
    model.load_state_dict(trained_state)
    model.eval()
    with torch.no_grad():
        return task.alone_equal_batch(model, test_x, model(test_x))


def run(args):
    task.check_length(args.epochs, args.steps)
    device = check_device(args.device)
    with progress.bar(task.steps_total(args.epochs, args.steps), "training (RepDL)", args.json) as advance:
        result, model, test_x = task.train("repdl", args.seed, args.epochs, device, advance, args.steps)
    torch_alone = torch_invariance(model.state_dict(), test_x)
    compared = []
    if args.compare_torch:
        for setting in progress.iterate(TORCH_SETTINGS, "training (plain PyTorch)", args.json):
            cell = matrix.run_cell(task.job_args(args.epochs, args.steps, args.seed) + ["--framework", "torch"],
                                   setting)
            compared.append((setting.name, cell))
    if args.json:
        out = {"environment": matrix.environment(), "epochs": args.epochs, "seed": args.seed,
               "repdl": {**result.hashes(), **result.metrics()}, "torch_alone_equal_batch": torch_alone,
               "torch": {name: {**c.hashes, **c.metrics} for name, c in compared}}
        print(progress.dumps(out))
        return 0
    print_report(result, torch_alone, compared, device)
    return 0


def print_report(result, torch_alone, compared, device):
    env = matrix.environment()
    n = task.INVARIANCE_SAMPLES
    print(f"RepDL {repdl.__version__} | torch {torch.__version__} | {env['cpu']} | RepDL ISA {env['repdl_isa']} | "
          f"{env['threads']} threads | {device}")
    print(f"A CNN trained for {result.epochs} epochs on scikit-learn's 8x8 digits "
          f"({task.TRAIN_SAMPLES} training, {task.TEST_SAMPLES} test images), seed {result.seed}:")
    print(f"  initial model  sha256 {result.initial_model}")
    print(f"  trained model  sha256 {result.trained_model}")
    print(f"  test logits    sha256 {result.test_logits}")
    print(f"  test accuracy  {100 * result.test_accuracy:.2f}%   test loss {result.test_loss:.6f}")
    print(f"  batch invariance: {result.alone_equal_batch} of {n} test samples evaluated alone give the bits of "
          f"their rows in the {task.TEST_SAMPLES}-sample batch (plain PyTorch, same weights: {torch_alone} of {n})")
    print("These hashes are the same on every machine, thread count, instruction set, PyTorch version and "
          "device; plain PyTorch's are not.")
    if compared:
        print("\nThe same model, data and order with plain PyTorch, in fresh processes:")
        rows = [("RepDL (this process)", result.trained_model, result.test_logits, result.test_accuracy)]
        rows += [(f"torch, {name}", c.hashes["trained_model"], c.hashes["test_logits"], c.metrics["test_accuracy"])
                 for name, c in compared]
        width = max(len(r[0]) for r in rows)
        print(f"  {'run':<{width}}  trained model     test logits       accuracy")
        for name, model_hash, logits_hash, acc in rows:
            print(f"  {name:<{width}}  {model_hash[:16]}  {logits_hash[:16]}  {100 * acc:.2f}%")
