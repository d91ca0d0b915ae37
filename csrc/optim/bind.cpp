#include "common/pyargs.h"
#include "optim/optim.h"

namespace repdl {
namespace {

// Every binding: (n, array addresses..., then float32 scalars as bit
// patterns and flags); an address of 0 is an absent state array.
float* arr(int64_t address) { return as_ptr<float>(address); }

optim::Common common(const std::vector<int64_t>& v, size_t at) {
  return {float_from_bits(v[at]), float_from_bits(v[at + 1])};
}

// optim_sgd(n, p, grad, buf, sign, weight_decay, lr, momentum, dampening_c, first, nesterov)
PyObject* py_sgd(PyObject*, PyObject* args) {
  return run_without_gil(args, 11, [](const std::vector<int64_t>& v) {
    const optim::Sgd s{common(v, 4), float_from_bits(v[6]), float_from_bits(v[7]), float_from_bits(v[8]),
                       v[9] != 0, v[10] != 0};
    optim::sgd(s, arr(v[1]), arr(v[2]), arr(v[3]), v[0]);
  });
}

// optim_adam(n, p, grad, m, v, vmax, sign, weight_decay, decoupled, decay, beta1, beta1_c, beta2, beta2_c,
//            bias2_sqrt, eps, step_size)
PyObject* py_adam(PyObject*, PyObject* args) {
  return run_without_gil(args, 17, [](const std::vector<int64_t>& v) {
    const optim::Adam s{common(v, 6),          v[8] != 0,             float_from_bits(v[9]),
                        float_from_bits(v[10]), float_from_bits(v[11]), float_from_bits(v[12]),
                        float_from_bits(v[13]), float_from_bits(v[14]), float_from_bits(v[15]),
                        float_from_bits(v[16])};
    optim::adam(s, arr(v[1]), arr(v[2]), arr(v[3]), arr(v[4]), arr(v[5]), v[0]);
  });
}

// optim_rmsprop(n, p, grad, v, gavg, buf, sign, weight_decay, lr, alpha, alpha_c, eps, momentum)
PyObject* py_rmsprop(PyObject*, PyObject* args) {
  return run_without_gil(args, 13, [](const std::vector<int64_t>& v) {
    const optim::Rmsprop s{common(v, 6), float_from_bits(v[8]), float_from_bits(v[9]), float_from_bits(v[10]),
                           float_from_bits(v[11]), float_from_bits(v[12])};
    optim::rmsprop(s, arr(v[1]), arr(v[2]), arr(v[3]), arr(v[4]), arr(v[5]), v[0]);
  });
}

// optim_adagrad(n, p, grad, sum, sign, weight_decay, clr, eps)
PyObject* py_adagrad(PyObject*, PyObject* args) {
  return run_without_gil(args, 8, [](const std::vector<int64_t>& v) {
    const optim::Adagrad s{common(v, 4), float_from_bits(v[6]), float_from_bits(v[7])};
    optim::adagrad(s, arr(v[1]), arr(v[2]), arr(v[3]), v[0]);
  });
}

const PyMethodDef kMethods[] = {
    {"optim_sgd", py_sgd, METH_VARARGS, "One SGD step of a dense parameter, in place."},
    {"optim_adam", py_adam, METH_VARARGS, "One Adam/AdamW step of a dense parameter, in place."},
    {"optim_rmsprop", py_rmsprop, METH_VARARGS, "One RMSprop step of a dense parameter, in place."},
    {"optim_adagrad", py_adagrad, METH_VARARGS, "One Adagrad step of a dense parameter, in place."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable optim_methods() { return kMethods; }

}  // namespace repdl
