"""CPU backend: optimizer steps in place (csrc/optim).  Every tensor of one
call has the parameter's dense layout (the optimizer has made sure), so the
kernels walk them as flat arrays of numel elements."""
from ... import _C
from ..._scalar import bits32


def _ptr(t):
    return 0 if t is None else t.data_ptr()


def sgd_step(p, grad, buf, *, sign, weight_decay, lr, momentum, dampening_c, first, nesterov):
    _C.optim_sgd(p.numel(), p.data_ptr(), grad.data_ptr(), _ptr(buf), bits32(sign), bits32(weight_decay), bits32(lr),
                 bits32(momentum), bits32(dampening_c), int(first), int(nesterov))


def adam_step(p, grad, m, v, vmax, *, sign, weight_decay, decoupled, decay, beta1, beta1_c, beta2, beta2_c, bias2_sqrt,
         eps, step_size):
    _C.optim_adam(p.numel(), p.data_ptr(), grad.data_ptr(), m.data_ptr(), v.data_ptr(), _ptr(vmax), bits32(sign),
                  bits32(weight_decay), int(decoupled), bits32(decay), bits32(beta1), bits32(beta1_c), bits32(beta2),
                  bits32(beta2_c), bits32(bias2_sqrt), bits32(eps), bits32(step_size))


def rmsprop_step(p, grad, v, gavg, buf, *, sign, weight_decay, lr, alpha, alpha_c, eps, momentum):
    _C.optim_rmsprop(p.numel(), p.data_ptr(), grad.data_ptr(), v.data_ptr(), _ptr(gavg), _ptr(buf), bits32(sign),
                     bits32(weight_decay), bits32(lr), bits32(alpha), bits32(alpha_c), bits32(eps), bits32(momentum))


def adagrad_step(p, grad, state_sum, *, sign, weight_decay, clr, eps):
    _C.optim_adagrad(p.numel(), p.data_ptr(), grad.data_ptr(), state_sum.data_ptr(), bits32(sign),
                     bits32(weight_decay), bits32(clr), bits32(eps))
