"""`repdl experiment`: the study "Non-Determinism in TensorFlow ResNets"
(Morin and Willetts, 2020) at laptop scale, on the demo task.

For each framework, R runs with one fixed seed and R runs with R different
seeds; run i goes to environment variant i (cycling through the matrix), so
the fixed-seed runs differ only in where they ran.  The paper's measure of
how much of the run-to-run variance is floating-point nondeterminism is the
fixed-seed standard deviation over the varied-seed one.
"""
import os
import statistics

from repdl.cli import matrix, progress, task
from repdl.cli.task import CliError

FIXED_SEED = 0
TITLES = {"torch": "plain PyTorch", "repdl": "RepDL"}


def add_parser(sub):
    p = sub.add_parser("experiment", help="measure run-to-run variance with a fixed seed, PyTorch against RepDL",
                       description=__doc__.split("\n\n", 1)[1])
    p.add_argument("--runs", type=int, default=8, help="runs per group (default 8; at least 2)")
    p.add_argument("--epochs", type=int, default=15, help="training epochs per run (default 15)")
    p.add_argument("--out", default="repdl-experiment",
                   help="directory for report.md, distributions.png and results.json (default repdl-experiment)")
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of the table")
    p.set_defaults(func=run)


def environments():
    """The variants runs cycle through: those a user's runs differ in (the
    reference backend and device cells are verification's business)."""
    return [v for v in matrix.variants() if v.name not in ("reference", "cuda")]


def summarise(runs):
    """Per framework: std of accuracy and loss per group, and their ratio."""
    out = {}
    for fw in TITLES:
        groups = {g: [r for r in runs if r["framework"] == fw and r["group"] == g] for g in ("fixed", "varied")}
        row = {"fixed_seed_distinct_models": len({r["trained_model"] for r in groups["fixed"]})}
        for metric in ("test_accuracy", "test_loss"):
            fixed, varied = (statistics.stdev(r[metric] for r in groups[g]) for g in ("fixed", "varied"))
            row[metric] = {"fixed_std": fixed, "varied_std": varied,
                           "share": fixed / varied if varied else None}
        out[fw] = row
    return out


def run(args):
    if args.runs < 2:
        raise CliError(f"--runs must be at least 2 (a standard deviation needs two runs), got {args.runs}")
    task.check_length(args.epochs, None)
    try:
        import matplotlib
    except ImportError:
        raise CliError("the experiment's plot needs matplotlib: pip install 'repdl[demo]'") from None
    envs = environments()
    plan = [(fw, group, i) for fw in TITLES for group in ("fixed", "varied") for i in range(args.runs)]
    runs = []
    for fw, group, i in progress.iterate(plan, "experiment", args.json):
        variant = envs[i % len(envs)]
        seed = FIXED_SEED if group == "fixed" else FIXED_SEED + 1 + i
        cell = matrix.run_cell(task.job_args(args.epochs, seed=seed) + ["--framework", fw], variant)
        runs.append({"framework": fw, "group": group, "seed": seed, "variant": variant.name,
                     "trained_model": cell.hashes["trained_model"], **cell.metrics})
    summary = summarise(runs)
    os.makedirs(args.out, exist_ok=True)
    results = {"runs_per_group": args.runs, "epochs": args.epochs, "environment": matrix.environment(),
               "summary": summary, "runs": runs}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        f.write(progress.dumps(results) + "\n")
    plot(runs, os.path.join(args.out, "distributions.png"), matplotlib)
    text = report(results)
    with open(os.path.join(args.out, "report.md"), "w") as f:
        f.write(text)
    print(progress.dumps(results) if args.json else text + f"\nWritten to {args.out}/ (report.md, "
                                                           "distributions.png, results.json)")
    return 0


def fmt(v):
    return "n/a" if v is None else f"{v:.6f}" if v < 1 else f"{v:.2f}"


def report(results):
    s, r = results["summary"], results["runs_per_group"]
    lines = [f"# Run-to-run variance: {r} runs per group, {results['epochs']} epochs, demo CNN on 8x8 digits", "",
             "Fixed seed: every run starts from the same weights and sees the same batches; run i ran in "
             "environment variant i (threads, ATen and MKL code paths, RepDL's instruction sets). "
             "Varied seeds: run i used seed i+1. Share = fixed-seed std / varied-seed std (Morin and Willetts' "
             "measure of the variance due to floating-point nondeterminism).", "",
             "| framework | metric | std, fixed seed | std, varied seeds | share | distinct fixed-seed models |",
             "|---|---|---|---|---|---|"]
    for fw, title in TITLES.items():
        for metric in ("test_accuracy", "test_loss"):
            m = s[fw][metric]
            lines.append(f"| {title} | {metric.replace('_', ' ')} | {fmt(m['fixed_std'])} | {fmt(m['varied_std'])} "
                         f"| {fmt(m['share'])} | {s[fw]['fixed_seed_distinct_models']} of {r} |")
    ours = s["repdl"]
    exact = ours["fixed_seed_distinct_models"] == 1 and ours["test_accuracy"]["fixed_std"] == 0 \
        and ours["test_loss"]["fixed_std"] == 0
    lines += ["", "With RepDL the fixed-seed standard deviation is exactly 0: all fixed-seed runs trained the "
              "same model, bit for bit." if exact else
              "RepDL's fixed-seed runs DIFFER: this is a reproducibility defect; please report it.", ""]
    return "\n".join(lines)


def plot(runs, path, matplotlib):
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    groups = [(fw, g) for fw in TITLES for g in ("fixed", "varied")]
    for ax, metric in zip(axes, ("test_accuracy", "test_loss")):
        for k, (fw, g) in enumerate(groups):
            values = [r[metric] for r in runs if r["framework"] == fw and r["group"] == g]
            offsets = [k + 0.3 * (j / max(1, len(values) - 1) - 0.5) for j in range(len(values))]
            ax.scatter(offsets, values, s=18, alpha=0.7, color="C0" if fw == "torch" else "C2")
        ax.set_xticks(range(len(groups)), [f"{TITLES[fw]}\n{g} seed{'s' if g == 'varied' else ''}"
                                           for fw, g in groups], fontsize=8)
        ax.set_title(metric.replace("_", " "))
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("Run-to-run spread of the demo CNN: fixed seed across environments vs varied seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
