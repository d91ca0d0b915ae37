"""The demo task: a small CNN trained on scikit-learn's bundled 8x8 digits
(1797 real handwritten digits, shipped inside the package, so nothing is
downloaded), with RepDL or with plain PyTorch.

Both frameworks start from the same weights (drawn by repdl.random) and see
the same batches in the same order (repdl's RandomSampler), so whatever
differs between two plain-PyTorch runs is floating-point nondeterminism
alone.  ``seed`` changes the initial weights, the split and the order.
"""
import dataclasses
import os

import torch

import repdl
from repdl.utils import get_hash

SAMPLES = 1797            # images in scikit-learn's digits
TEST_SAMPLES = 360
TRAIN_SAMPLES = SAMPLES - TEST_SAMPLES
BATCH = 32
INVARIANCE_SAMPLES = 5     # test samples also evaluated one at a time


class CliError(Exception):
    """A user-facing failure: printed as one line, exit status 2."""


def load_digits():
    """(images (1797, 8, 8), labels) as numpy arrays.  The CSV inside the
    scikit-learn package is read directly: importing sklearn.datasets costs
    a second, in every cell of a verification matrix."""
    import importlib.util
    import numpy as np

    spec = importlib.util.find_spec("sklearn")
    if spec is None:
        raise CliError("the demo needs scikit-learn for its bundled digits data: pip install 'repdl[demo]'")
    path = os.path.join(spec.submodule_search_locations[0], "datasets", "data", "digits.csv.gz")
    if os.path.exists(path):
        table = np.loadtxt(path, delimiter=",")
        return table[:, :64].reshape(-1, 8, 8), table[:, 64].astype(np.int64)
    from sklearn.datasets import load_digits as sklearn_digits  # another layout: the public loader

    data = sklearn_digits()
    return data.images, data.target


def digits(seed: int, device: str):
    """(train_x, train_y, test_x, test_y): pixel values 0..16 scaled by 1/16
    (exact), split by a repdl.random permutation."""
    images, labels = load_digits()
    x = torch.tensor(images, dtype=torch.float32).unsqueeze(1) * 0.0625
    y = torch.tensor(labels, dtype=torch.int64)
    order = repdl.random.randperm(len(y), generator=repdl.random.Generator(seed))
    train, test = order[:-TEST_SAMPLES], order[-TEST_SAMPLES:]
    return x[train].to(device), y[train].to(device), x[test].to(device), y[test].to(device)


def cnn(nn):
    """Conv-BN-ReLU-pool twice, then a two-layer classifier with dropout."""
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
        nn.Dropout(0.1), nn.Linear(32 * 2 * 2, 64), nn.ReLU(), nn.Linear(64, 10))


FRAMEWORKS = {
    "repdl": dict(nn=repdl.nn, optim=repdl.optim, sched=repdl.optim.lr_scheduler),
    "torch": dict(nn=torch.nn, optim=torch.optim, sched=torch.optim.lr_scheduler),
}


@dataclasses.dataclass
class Result:
    framework: str
    seed: int
    epochs: int
    initial_model: str
    trained_model: str
    test_logits: str
    test_accuracy: float
    test_loss: float
    alone_equal_batch: int        # of INVARIANCE_SAMPLES test samples, how many gave their batch row's bits alone

    def hashes(self):
        return {"initial_model": self.initial_model, "trained_model": self.trained_model,
                "test_logits": self.test_logits}

    def metrics(self):
        return {"test_accuracy": self.test_accuracy, "test_loss": self.test_loss,
                "alone_equal_batch": self.alone_equal_batch}


def train(framework: str = "repdl", seed: int = 0, epochs: int = 8, device: str = "cpu", progress=None,
          steps=None):
    """Train the CNN for `epochs` epochs, or only its first `steps` steps
    (quick checks): (Result, the trained model, the test images).
    `progress(steps_done)` is called after each step."""
    fw = FRAMEWORKS[framework]
    train_x, train_y, test_x, test_y = digits(seed, device)
    repdl.manual_seed(seed)
    reference = cnn(repdl.nn)
    model = reference if framework == "repdl" else cnn(torch.nn)
    model.load_state_dict(reference.state_dict())
    model.to(device)
    initial = get_hash(model)
    if framework == "torch":
        torch.manual_seed(seed)  # torch's dropout draws from torch's generator
    opt = fw["optim"].SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    sched = fw["sched"].CosineAnnealingLR(opt, T_max=epochs)
    sampler = repdl.random.RandomSampler(range(len(train_y)), generator=repdl.random.Generator(seed + 1))
    loss_fn = fw["nn"].functional.cross_entropy
    done = 0
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        order = torch.tensor(list(sampler), dtype=torch.int64, device=device)
        for start in range(0, len(order), BATCH):
            if done == steps:
                break
            idx = order[start:start + BATCH]
            opt.zero_grad(set_to_none=True)
            loss_fn(model(train_x[idx]), train_y[idx]).backward()
            opt.step()
            done += 1
            if progress:
                progress(done)
        sched.step()
    model.eval()
    with torch.no_grad():
        logits = model(test_x)
        loss = loss_fn(logits, test_y)
        alone = alone_equal_batch(model, test_x, logits)
    accuracy = (logits.argmax(1) == test_y).sum().item() / len(test_y)
    result = Result(framework, seed, epochs, initial, get_hash(model), get_hash(logits), accuracy, loss.item(), alone)
    return result, model, test_x


def alone_equal_batch(model, test_x, logits):
    """How many of the first INVARIANCE_SAMPLES test images, evaluated one
    at a time, give the bits of their rows of `logits` (the whole batch)."""
    return sum(bool(torch.equal(model(test_x[i:i + 1]).view(torch.int32), logits[i:i + 1].view(torch.int32)))
               for i in range(INVARIANCE_SAMPLES))


def steps_total(epochs: int, steps=None) -> int:
    full = epochs * -(-TRAIN_SAMPLES // BATCH)
    return full if steps is None else min(steps, full)


def check_length(epochs, steps):
    if epochs < 1:
        raise CliError(f"--epochs must be at least 1, got {epochs}")
    if steps is not None and steps < 1:
        raise CliError(f"--steps must be at least 1, got {steps}")


def job_args(epochs, steps=None, seed=0):
    """The arguments of repdl.cli.job that run this task."""
    return ["--demo", "--epochs", str(epochs), "--seed", str(seed)] + ([] if steps is None else ["--steps", str(steps)])
