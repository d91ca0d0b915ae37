"""The drop-in mode (repdl.reproducible, repdl.audit): unmodified torch and
HuggingFace code computes RepDL's bits, and says exactly where it cannot.

The model tests run tests/dropin_job.py (tiny HuggingFace models, a plain
torch.nn CNN, torchvision's ResNet-18 when installed) in fresh processes
under every environment variant and the reference backend: one forward,
backward and torch.optim.AdamW step in strict mode must give one set of
hashes everywhere, equal to tests/golden.json; plain torch on the same
weights must not."""
import contextlib
import copy
import json
import math
import subprocess
import sys
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import repdl
from repdl.dropin import table
from repdl.testing import assert_bitwise_equal
from repdl.verify import get_hash, pattern

from environments import VARIANTS, run_job

transformers = pytest.importorskip("transformers")

JOB = Path(__file__).with_name("dropin_job.py")
GOLDEN = json.loads(Path(__file__).with_name("golden.json").read_text())["dropin"]
sys.path.insert(0, str(JOB.parent))
import dropin_job  # noqa: E402


# ---- whole models across environments ------------------------------------------

@pytest.fixture(scope="module")
def model_runs():
    variants = dict(VARIANTS, reference={"REPDL_VERIFY_BACKEND": "reference"})
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(variants, pool.map(lambda env: run_job(env, JOB), variants.values())))


@pytest.mark.subprocess
@pytest.mark.parametrize("model", dropin_job.models())
def test_models_give_one_set_of_hashes_in_every_environment(model_runs, model):
    base = model_runs["default"]["repdl"][model]
    for variant, result in model_runs.items():
        assert result["repdl"][model] == base, f"{model}: {variant} differs from the default environment"


@pytest.mark.subprocess
@pytest.mark.parametrize("model", [m for m in dropin_job.models() if m != "resnet18"])
def test_models_have_the_golden_hashes(model_runs, model):
    if model != "cnn" and transformers.__version__ != GOLDEN["transformers"]:
        pytest.skip(f"golden hashes are for transformers {GOLDEN['transformers']}, "
                    f"this is {transformers.__version__} (whose initialisation order may differ)")
    assert model_runs["default"]["repdl"][model] == GOLDEN["models"][model]


@pytest.mark.subprocess
@pytest.mark.parametrize("model", dropin_job.models())
def test_plain_torch_moves_across_the_same_environments(model_runs, model):
    """Negative control: the same step in plain torch gives at least two
    distinct hashes of the gradients across the variants."""
    grads = {r["torch"][model]["grads"] for r in model_runs.values()}
    assert len(grads) >= 2, f"{model}: plain torch gave one gradient hash everywhere; the variants had no effect"


# ---- strict and non-strict ---------------------------------------------------------

def _raises(fn, *fragments):
    with pytest.raises(repdl.NonReproducibleError) as info:
        with repdl.reproducible():
            fn()
    message = str(info.value)
    for fragment in fragments + (f"{__file__}:",):
        assert fragment in message, message
    return message


def test_strict_mode_names_the_op_level_direction_and_call_site():
    x = pattern(3, 4)
    _raises(lambda: torch.cumsum(x, 0), "aten.cumsum", "aten level, forward")
    _raises(lambda: torch.div(x, 3, rounding_mode="floor"), "torch.div", "function level, forward", "floor")
    _raises(lambda: F.softmax(x), "torch.nn.functional.softmax", "without dim")


def test_exact_forward_with_a_scatter_add_backward_raises_at_the_call():
    w = pattern(4).requires_grad_()
    _raises(lambda: w[torch.tensor([0, 0])], "torch.Tensor.__getitem__", "function level, backward")
    _raises(lambda: torch.gather(w, 0, torch.tensor([1, 1])), "torch.gather", "backward")
    with repdl.reproducible():  # without autograd, the same forward is exact
        with torch.no_grad():
            w[torch.tensor([0, 0])]
        w.detach()[torch.tensor([0, 0])]


def test_an_unsupported_op_in_the_engines_backward_is_caught_by_the_guard():
    w = pattern(4).requires_grad_()
    x = torch.narrow(w, 0, 0, 2)  # narrow is exact; its own gradient too

    def backward_through_a_torch_sum():
        y = torch.ops.aten.expand.default(w, [3, 4])  # the aten op itself: no function-level reroute
        (y * 1).sum().backward()

    _raises(backward_through_a_torch_sum, "aten.sum", "backward of ExpandBackward0")
    with repdl.reproducible():
        x.sum().backward()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64, torch.complex64])
def test_dtypes_without_a_contract_raise_naming_the_op(dtype):
    x = pattern(3, 4).to(dtype)
    _raises(lambda: x + 1, "torch.Tensor.add", str(dtype))
    _raises(lambda: torch.cumsum(x, 0), "aten.cumsum", str(dtype))
    with repdl.reproducible():  # moving values of any dtype is exact
        y = x.clone().t().contiguous()
        if not y.is_complex():  # (a complex-to-real cast also drops the imaginary part)
            y.to(torch.float32)


def test_non_strict_mode_warns_once_per_op_and_runs_torchs_op():
    x = pattern(3, 4)
    with repdl.reproducible(strict=False):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            a = torch.cumsum(x, 0)
            b = torch.cumsum(x, 0)
    assert_bitwise_equal(a, torch.cumsum(x, 0))
    assert_bitwise_equal(b, a)
    assert [w.category for w in caught] == [repdl.NonReproducibleWarning]
    assert "aten.cumsum" in str(caught[0].message)


# ---- what is rerouted ----------------------------------------------------------------

def test_torch_calls_compute_repdls_bits_forward_and_backward():
    x, w, b = pattern(6, 5, salt=1).requires_grad_(), pattern(4, 5, salt=2).requires_grad_(), pattern(4, salt=3)
    with repdl.reproducible():
        y = F.gelu(F.linear(x, w, b)).softmax(-1) * 3.0 + x.sum() ** 2
        (gx, gw) = torch.autograd.grad(y.sum(), (x, w))
    y_ = repdl.add(repdl.mul(repdl.softmax(repdl.gelu(repdl.linear(x, w, b)), -1), 3.0), repdl.pow(repdl.sum(x), 2))
    gx_, gw_ = torch.autograd.grad(repdl.sum(y_), (x, w))
    for got, want in ((y, y_), (gx, gx_), (gw, gw_)):
        assert_bitwise_equal(got, want)


def test_in_place_ops_are_repdls_op_then_a_copy_with_torchs_dtype_rule():
    x, y = pattern(5, salt=1), pattern(5, salt=2)
    got = x.clone()
    with repdl.reproducible():
        got += y
        got.mul_(3.0)
        with pytest.raises(RuntimeError, match="can't be cast"):
            torch.ones(3, dtype=torch.int64).add_(torch.full((3,), 0.5))
    assert_bitwise_equal(got, repdl.mul(repdl.add(x, y), 3.0))


def test_in_place_ops_on_recorded_tensors_backpropagate_with_the_out_of_place_bits():
    """x *= c, x.mul_(x) and the like on a tensor the graph computed: the
    op runs on a clone, so what its backward saved is not overwritten (with
    a plain copy_, the backward raised 'modified by an inplace operation',
    where torch's own x *= c works), and the gradients are the bits of the
    same ops written out of place, signed zeros included."""
    a0 = pattern(5, 7, salt=4) * 4
    c0 = pattern(5, 7, salt=5) * 4
    c0[0, :3] = torch.tensor([0.0, -0.0, 0.0])

    def grads(in_place):
        a, c = a0.clone().requires_grad_(), c0.clone().requires_grad_()
        with repdl.reproducible():
            b = a * 1.0
            if in_place:
                b *= c
                b.mul_(b)
                b += a
                b.sub_(c)
                b.relu_()
            else:
                t = b * c
                b = torch.relu((t * t + a) - c)
            return (b.detach(), *torch.autograd.grad(b, (a, c), pattern(5, 7, salt=6)))

    for got, want in zip(grads(True), grads(False)):
        assert_bitwise_equal(got, want)


def test_python_number_to_a_tensor_power_is_the_contracts_exp2_graph():
    x = pattern(64, salt=4)
    with repdl.reproducible():
        got = 10000.0 ** x
    log2a = repdl.log2(torch.tensor(10000.0))
    assert_bitwise_equal(got, repdl.exp2(repdl.mul(log2a, x)))


def test_broadcast_gradients_in_the_mode_are_the_contracts_sequential_sums():
    a = pattern(7, 1, 5, salt=1).requires_grad_()
    cls = pattern(1, 1, 5, salt=2).requires_grad_()
    g = pattern(7, 3, 5, salt=3)
    with repdl.reproducible():
        ga, gc = torch.autograd.grad(a * cls.expand(7, 3, 5), (a, cls), g)
    assert_bitwise_equal(ga, repdl.sum(repdl.mul(g, cls.detach()), 1, keepdim=True))
    assert_bitwise_equal(gc, repdl.sum(repdl.mul(g, a.detach()), (0, 1), keepdim=True))


def test_a_tensor_used_three_times_sums_its_gradients_in_the_engines_order_even_under_flush_to_zero():
    """The contract's order ((g3 + g2) + g1, "Gradients": accumulation), and
    in the mode the engine's additions run in the IEEE environment, so a
    subnormal sum survives torch.set_flush_denormal(True)."""
    tiny = 2.0 ** -140
    w = [torch.tensor([1e8, tiny]), torch.tensor([1.0, tiny]), torch.tensor([-1e8, 2 * tiny])]
    x = torch.tensor([1.0, 1.0], requires_grad=True)
    saved = torch.set_flush_denormal(True)
    try:
        with repdl.reproducible():
            (got,) = torch.autograd.grad(x * w[0] + x * w[1] + x * w[2], x, torch.ones(2))
    finally:
        torch.set_flush_denormal(False)
    assert saved
    assert_bitwise_equal(got, repdl.add(repdl.add(w[2], w[1]), w[0]))
    assert got[1].item() == 4 * tiny


# ---- construction, data and optimizers inside the mode --------------------------------

def test_modules_built_inside_the_mode_draw_from_repdls_stream():
    with repdl.reproducible(seed=3):
        lin = nn.Linear(5, 4)
    repdl.manual_seed(3)
    w, b = torch.empty(4, 5), torch.empty(4)
    repdl.random.init.kaiming_uniform_(w, a=math.sqrt(5))
    repdl.random.init.uniform_(b, -1 / math.sqrt(5), 1 / math.sqrt(5))
    assert_bitwise_equal(lin.weight.detach(), w)
    assert_bitwise_equal(lin.bias.detach(), b)


def test_torch_random_functions_draw_from_repdls_stream():
    with repdl.reproducible(seed=7):
        got = [torch.randn(3, 4), torch.rand(5), torch.randint(0, 10, (6,)), torch.randperm(9),
               torch.empty(4).uniform_(-2, 2), torch.empty(4).normal_(1.0, 3.0)]
    repdl.manual_seed(7)
    want = [repdl.random.randn(3, 4), repdl.random.rand(5), repdl.random.randint(0, 10, (6,)),
            repdl.random.randperm(9), repdl.random.uniform_(torch.empty(4), -2, 2),
            repdl.random.normal_(torch.empty(4), 1.0, 3.0)]
    for g, w in zip(got, want):
        assert torch.equal(g.view(torch.int32) if g.is_floating_point() else g,
                           w.view(torch.int32) if w.is_floating_point() else w)


def test_a_torch_generator_maps_to_a_repdl_stream_of_its_seed():
    with repdl.reproducible():
        g = torch.Generator().manual_seed(5)
        a, b = torch.randn(4, generator=g), torch.randn(4, generator=g)
    r = repdl.random.Generator(5)
    assert_bitwise_equal(a, repdl.random.randn(4, generator=r))
    assert_bitwise_equal(b, repdl.random.randn(4, generator=r))


def test_dropout_inside_the_mode_is_repdls_mask():
    x = pattern(8, 16) + 1
    with repdl.reproducible(seed=11):
        got = nn.Dropout(0.3)(x)
    repdl.manual_seed(11)
    assert_bitwise_equal(got, repdl.random.dropout(x, 0.3))


def test_a_shuffling_dataloader_created_in_the_mode_is_repdls_wherever_it_is_iterated():
    data = torch.arange(23)

    def epochs(seed, iterate_inside):
        with repdl.reproducible(seed=seed):
            loader = torch.utils.data.DataLoader(data, batch_size=5, shuffle=True)
            if iterate_inside:
                return [torch.cat(list(loader)).tolist() for _ in range(2)]
        return [torch.cat(list(loader)).tolist() for _ in range(2)]

    first = epochs(0, True)
    assert first == epochs(0, False)
    assert first[0] != first[1] and sorted(first[0]) == list(range(23))
    assert first != epochs(1, True)


def _optimizer_case(cls, **kwargs):
    p = pattern(6, 5, salt=1).requires_grad_()
    p.grad = pattern(6, 5, salt=2)
    return p, cls([p], lr=0.01, weight_decay=0.1, **kwargs)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
@pytest.mark.parametrize("path", [{}, {"foreach": True}, {"foreach": False}, {"fused": True}])
def test_torch_optimizers_step_as_repdls_whatever_path_was_asked(name, path):
    extra = {"momentum": 0.9} if name == "SGD" else {}
    theirs, opt = _optimizer_case(getattr(torch.optim, name), **extra, **path)
    ours, ref = _optimizer_case(getattr(repdl.optim, name), **extra)
    for _ in range(3):
        with repdl.reproducible():
            opt.step()
        ref.step()
    assert_bitwise_equal(theirs.detach(), ours.detach())


def test_torch_schedulers_inside_the_mode_give_repdls_rates():
    def rates(module, inside):
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        sched = module.CosineAnnealingLR(opt, T_max=7, eta_min=0.001)
        out = []
        for _ in range(10):
            with repdl.reproducible() if inside else contextlib.nullcontext():
                opt.step()
                sched.step()
            out.append(opt.param_groups[0]["lr"])
        return out

    assert rates(torch.optim.lr_scheduler, True) == rates(repdl.optim.lr_scheduler, False)


def test_patches_leave_code_outside_the_mode_alone():
    with repdl.reproducible():
        pass
    p, opt = _optimizer_case(torch.optim.Adam, foreach=True)
    q, ref = _optimizer_case(torch.optim.Adam, foreach=True)
    opt.step()  # outside: torch's own foreach step (same as a second torch optimizer)
    ref.step()
    assert_bitwise_equal(p.detach(), q.detach())
    torch.manual_seed(0)
    a = torch.randn(5)
    torch.manual_seed(0)
    assert_bitwise_equal(a, torch.randn(5))
    assert not repdl.dropin.active()


# ---- torch.compile -----------------------------------------------------------------------

@pytest.mark.parametrize("model", ["cnn", "gpt2"])
def test_compiled_models_inside_the_mode_give_the_eager_bits(model):
    with repdl.reproducible(seed=0):
        net, inputs = dropin_job.build(model)
    twin = copy.deepcopy(net)
    compiled = torch.compile(twin)
    with repdl.reproducible(seed=1):
        eager = dropin_job.step(net, inputs)
    with repdl.reproducible(seed=1):
        got = dropin_job.step(compiled, inputs)
    got["params"] = get_hash(twin)  # the compiled wrapper's state_dict names carry a prefix
    assert got == eager


# ---- nesting, threads, enable/disable -------------------------------------------------------

def test_nested_modes_apply_the_innermost_strictness():
    x = pattern(4)
    with repdl.reproducible(strict=True):
        with repdl.reproducible(strict=False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.cumsum(x, 0)
        with pytest.raises(repdl.NonReproducibleError):
            torch.cumsum(x, 0)
    torch.cumsum(x, 0)  # outside every mode: plain torch


def test_leaving_modes_out_of_order_raises():
    outer, inner = repdl.reproducible(), repdl.reproducible()
    outer.__enter__()
    inner.__enter__()
    with pytest.raises(RuntimeError, match="innermost"):
        outer.__exit__(None, None, None)
    inner.__exit__(None, None, None)
    outer.__exit__(None, None, None)
    assert not repdl.dropin.active()


def test_a_mode_covers_the_thread_that_entered_it():
    x = pattern(4)
    seen = {}

    def worker(enter):
        try:
            if enter:
                with mode:
                    torch.cumsum(x, 0)
            else:
                torch.cumsum(x, 0)
            seen[enter] = "ran"
        except repdl.NonReproducibleError:
            seen[enter] = "raised"

    mode = repdl.reproducible()
    with mode:
        threads = [threading.Thread(target=worker, args=(e,)) for e in (False, True)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert repdl.dropin.active()
    assert seen == {False: "ran", True: "raised"}  # a plain thread is plain torch; entering covers it


def test_enable_and_disable():
    with pytest.raises(RuntimeError, match="not called"):
        repdl.disable()
    repdl.enable(strict=True)
    try:
        with pytest.raises(RuntimeError, match="already enabled"):
            repdl.enable()
        with pytest.raises(repdl.NonReproducibleError):
            torch.cumsum(pattern(3), 0)
    finally:
        repdl.disable()
    torch.cumsum(pattern(3), 0)


def test_decorator_form():
    @repdl.reproducible(seed=2)
    def draw():
        return torch.randn(3)

    got = draw()
    repdl.manual_seed(2)
    assert_bitwise_equal(got, repdl.random.randn(3))


def test_bad_arguments_raise_before_anything_runs():
    with pytest.raises(TypeError, match="strict"):
        repdl.reproducible(strict="yes")
    with pytest.raises((TypeError, ValueError)):
        repdl.reproducible(seed=-1)


# ---- the audit ---------------------------------------------------------------------------

def _audited(x):
    y = torch.cumsum(x * 2, 0)
    y.sum().backward()
    return "done"


def test_audit_reports_every_op_with_its_class_count_and_sites():
    report = repdl.audit(_audited, pattern(4, 3).requires_grad_())
    assert report.result == "done" and not report.reproducible
    calls = {(level, op, cls): n for level, op, cls, n in report.rows}
    assert calls[("function", "torch.Tensor.mul", table.REROUTED)] == 1
    assert calls[("aten", "aten.cumsum.default", table.UNSUPPORTED)] == 2  # forward, and again in its backward
    sites = report.unsupported_ops["aten.cumsum.default"]
    assert {direction for direction, _ in sites} == {"forward", "backward of CumsumBackward0"}
    assert all(f"{__file__}:" in site for _, site in sites)
    text = report.table()
    assert "aten.cumsum.default" in text and "unsupported ops and where they ran" in text
    parsed = json.loads(report.to_json())
    assert parsed["reproducible"] is False and any(u["op"] == "aten.cumsum.default" for u in parsed["unsupported"])


def test_audit_of_reproducible_code_says_so():
    report = repdl.audit(lambda: F.linear(pattern(3, 4), pattern(2, 4)).sum())
    assert report.reproducible and "every op that ran is reproducible" in report.table()


def test_audit_command_line(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nx = torch.ones(3)\nprint('sum', torch.cumsum(x, 0).tolist())\n")
    done = subprocess.run([sys.executable, "-m", "repdl", "audit", "--json", str(script)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr  # 1: an op was not reproducible
    report = json.loads(done.stdout[done.stdout.index("\n{") + 1:])
    assert report["reproducible"] is False
    assert report["unsupported"][0]["site"].startswith(f"{script}:3")
    text = subprocess.run([sys.executable, "-m", "repdl", "audit", str(script)],
                          capture_output=True, text=True, timeout=300)
    assert "aten.cumsum.default" in text.stdout and "sum [1.0, 2.0, 3.0]" in text.stdout
    script.write_text("import torch\nprint(torch.ones(3).sum().item())\n")
    clean = subprocess.run([sys.executable, "-m", "repdl", "audit", str(script)],
                           capture_output=True, text=True, timeout=300)
    assert clean.returncode == 0 and "every op that ran is reproducible" in clean.stdout


# ---- the table -----------------------------------------------------------------------------

def test_every_table_entry_is_classified_both_ways():
    classes = {table.EXACT, table.REROUTED, table.UNSUPPORTED}
    for func, entry in table.FUNCTIONS.items():
        assert entry.forward in classes and entry.backward in classes, func
        assert (entry.handler is not None) == (entry.forward == table.REROUTED), func
        assert entry.applies is not None or entry.backward != table.UNSUPPORTED, func
