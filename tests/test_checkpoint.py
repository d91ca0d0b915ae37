"""repdl.checkpoint: round trips, weights-only loading, damaged files, an
interrupted save, and mismatches that must not half-load.  (Resuming a
training run bit for bit in a new process: tests/test_training.py.)"""
import os
import struct
import subprocess
import sys
import textwrap
import zipfile

import pytest
import torch

import repdl
from repdl.checkpoint import CheckpointError, load, save
from repdl.utils import get_hash


def setup():
    repdl.manual_seed(3)
    model = repdl.nn.Sequential(repdl.nn.Linear(4, 5), repdl.nn.BatchNorm1d(5))
    opt = repdl.optim.AdamW(model.parameters(), lr=0.01)
    sched = repdl.optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 1, 3])
    model(repdl.random.randn(6, 4)).sum().backward()
    opt.step()
    sched.step()
    sampler = repdl.random.RandomSampler(10, seed=4)
    sampler.set_epoch(2, start=3)
    return model, opt, sched, sampler


def test_round_trip(tmp_path):
    model, opt, sched, sampler = setup()
    rng = repdl.random.Generator(9)
    repdl.random.rand(3, generator=rng)
    save(tmp_path / "ck", model=model, optimizer=opt, scheduler=sched, rng=rng, sampler=sampler,
         progress={"epoch": 2, "losses": [0.5, 0.25]})
    expected = get_hash([model, opt, sched, rng, sampler.state_dict()])
    model2, opt2, sched2, sampler2 = setup()
    model2[0].weight.data.fill_(7.0)
    rng2 = repdl.random.Generator(1)
    sampler2.set_epoch(0)
    out = load(tmp_path / "ck", model=model2, optimizer=opt2, scheduler=sched2, rng=rng2, sampler=sampler2)
    assert out["progress"] == {"epoch": 2, "losses": [0.5, 0.25]}
    assert get_hash([model2, opt2, sched2, rng2, sampler2.state_dict()]) == expected
    assert list(sampler2) == list(sampler)


def test_a_file_that_would_run_code_is_refused(tmp_path):
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    path = tmp_path / "evil"
    torch.save({"format": "repdl-checkpoint", "payload": Evil()}, path)
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load(path)


def _damaged(tmp_path, how):
    model, opt, _, _ = setup()
    path = tmp_path / "ck"
    save(path, model=model, optimizer=opt)
    data = bytearray(path.read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    else:
        # flip one bit inside the stored weight bytes (not the zip directory,
        # which the reader would reject anyway)
        with zipfile.ZipFile(path) as z:
            info = next(i for i in z.infolist() if "/data/" in i.filename and i.file_size >= 16)
        name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)  # the local header's
        data[info.header_offset + 30 + name_len + extra_len + 5] ^= 0x10
    path.write_bytes(bytes(data))
    return path, model, opt


@pytest.mark.parametrize("how", ["truncated", "bit_flip"])
def test_damaged_files_raise_and_load_nothing(tmp_path, how):
    path, _, _ = _damaged(tmp_path, how)
    model, opt, _, _ = setup()
    before = get_hash([model, opt])
    with pytest.raises(CheckpointError):
        load(path, model=model, optimizer=opt)
    assert get_hash([model, opt]) == before


def test_mismatches_raise_before_anything_changes(tmp_path):
    model, opt, sched, _ = setup()
    save(tmp_path / "ck", model=model, optimizer=opt, scheduler=sched)
    other = repdl.nn.Sequential(repdl.nn.Linear(4, 6), repdl.nn.BatchNorm1d(6))
    other_opt = repdl.optim.AdamW(other.parameters())
    before = get_hash([other, other_opt])
    with pytest.raises(CheckpointError, match=r"'model.0.weight' is torch.float32 \(5, 4\)"):
        load(tmp_path / "ck", model=other, optimizer=other_opt)
    assert get_hash([other, other_opt]) == before
    # the model fits, the optimizer does not: the model must stay untouched too
    model2, _, _, _ = setup()
    model2[0].weight.data.fill_(1.0)
    before = get_hash(model2)
    with pytest.raises(CheckpointError, match="parameter groups"):
        load(tmp_path / "ck", model=model2, optimizer=repdl.optim.AdamW(model2[0].parameters()))
    assert get_hash(model2) == before
    with pytest.raises(CheckpointError, match="no entry 'rng'"):
        load(tmp_path / "ck", rng=repdl.random.Generator())


def test_an_interrupted_save_leaves_the_previous_checkpoint(tmp_path):
    """A process killed in the middle of writing (here: after half the
    bytes) leaves the old file intact and loadable."""
    path = tmp_path / "ck"
    save(path, progress={"step": 1})
    script = textwrap.dedent(f"""
        import os, torch, repdl
        real_save = torch.save
        def dying_save(obj, f):
            import io
            buf = io.BytesIO(); real_save(obj, buf)
            f.write(buf.getvalue()[: len(buf.getvalue()) // 2]); f.flush()
            os._exit(1)
        torch.save = dying_save
        repdl.checkpoint.save({str(path)!r}, progress={{"step": 2}}, big=torch.zeros(100000))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 1
    assert load(path)["progress"] == {"step": 1}


def test_only_plain_data_is_stored(tmp_path):
    """Everything in the file is what torch.load(weights_only=True) accepts."""
    model, opt, sched, sampler = setup()
    path = tmp_path / "ck"
    save(path, model=model, optimizer=opt, scheduler=sched, sampler=sampler, rng=repdl.random.Generator(1))
    torch.load(path, weights_only=True)  # raises UnpicklingError on anything else
