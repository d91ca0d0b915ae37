"""Progress bars (tqdm, on stderr, only when it is a terminal) and JSON output."""
import contextlib
import json

from tqdm import tqdm


@contextlib.contextmanager
def bar(total, desc, quiet=False):
    """A bar over `total` steps; yields advance(done)."""
    with tqdm(total=total, desc=desc, unit="step", leave=False, disable=True if quiet else None) as b:
        yield lambda done: b.update(done - b.n)


def iterate(items, desc, quiet=False):
    return tqdm(items, desc=desc, unit="run", leave=False, disable=True if quiet else None)


def dumps(obj):
    return json.dumps(obj, indent=2, sort_keys=False)
