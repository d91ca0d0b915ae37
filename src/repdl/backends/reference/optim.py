"""Reference: one optimizer step of one parameter, in place (CONTRACT.md,
"Optimizers"), element by element as the contract's sequence of float32
operations.

Values are held in float64; ``_r`` rounds to float32 once, so each line
below is one float32 operation with one rounding (a float64 + - * / or
sqrt of float32 values, rounded to float32, is the correctly rounded
float32 result: see ``_exact``).  Scalars arrive as float32 values in
Python floats.  NaNs are made canonical where a state is stored."""
import torch

from . import _exact


def _r(x64):
    return x64.to(torch.float32).to(torch.float64)


def _store(t, x64):
    t.copy_(_exact.round32(x64))


def _direction(p64, grad, sign, weight_decay, l2=True):
    """g = sign * grad, then g + weight_decay * p where weight_decay != 0."""
    g = sign * _exact.f64(grad)
    return _r(g + _r(weight_decay * p64)) if l2 and weight_decay != 0 else g


def sgd_step(p, grad, buf, *, sign, weight_decay, lr, momentum, dampening_c, first, nesterov):
    p64 = _exact.f64(p)
    g = _direction(p64, grad, sign, weight_decay)
    if buf is not None:
        b = g if first else _r(_r(momentum * _exact.f64(buf)) + _r(dampening_c * g))
        _store(buf, b)
        g = _r(g + _r(momentum * b)) if nesterov else b
    _store(p, _r(p64 - _r(lr * g)))


def adam_step(p, grad, m, v, vmax, *, sign, weight_decay, decoupled, decay, beta1, beta1_c, beta2, beta2_c, bias2_sqrt,
         eps, step_size):
    p64 = _exact.f64(p)
    if decoupled and weight_decay != 0:
        p64 = _r(p64 * decay)
    g = _direction(p64, grad, sign, weight_decay, l2=not decoupled)
    m64 = _r(_r(beta1 * _exact.f64(m)) + _r(beta1_c * g))
    v64 = _r(_r(beta2 * _exact.f64(v)) + _r(beta2_c * _r(g * g)))
    _store(m, m64)
    _store(v, v64)
    second = v64
    if vmax is not None:
        old = _exact.f64(vmax)
        second = torch.where(torch.isnan(old) | torch.isnan(v64), float("nan"), torch.where(v64 > old, v64, old))
        _store(vmax, second)
    denom = _r(_r(_r(torch.sqrt(second)) / bias2_sqrt) + eps)
    _store(p, _r(p64 - _r(step_size * _r(m64 / denom))))


def rmsprop_step(p, grad, v, gavg, buf, *, sign, weight_decay, lr, alpha, alpha_c, eps, momentum):
    p64 = _exact.f64(p)
    g = _direction(p64, grad, sign, weight_decay)
    v64 = _r(_r(alpha * _exact.f64(v)) + _r(alpha_c * _r(g * g)))
    _store(v, v64)
    spread = v64
    if gavg is not None:
        ga = _r(_r(alpha * _exact.f64(gavg)) + _r(alpha_c * g))
        _store(gavg, ga)
        spread = _r(v64 - _r(ga * ga))
    avg = _r(_r(torch.sqrt(spread)) + eps)
    if buf is not None:
        b = _r(_r(momentum * _exact.f64(buf)) + _r(g / avg))
        _store(buf, b)
        _store(p, _r(p64 - _r(lr * b)))
    else:
        _store(p, _r(p64 - _r(lr * _r(g / avg))))


def adagrad_step(p, grad, state_sum, *, sign, weight_decay, clr, eps):
    p64 = _exact.f64(p)
    g = _direction(p64, grad, sign, weight_decay)
    s = _r(_exact.f64(state_sum) + _r(g * g))
    _store(state_sum, s)
    _store(p, _r(p64 - _r(clr * _r(g / _r(_r(torch.sqrt(s)) + eps)))))
