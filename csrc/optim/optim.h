// Optimizer steps: each parameter element's update as the fixed sequence of
// IEEE float32 operations written in docs/CONTRACT.md ("Optimizers"), one
// rounding per operation, no fma, every NaN stored canonical.  Elements are
// independent, so threads and vector lanes split them freely.
//
// A step sees n elements of each array at the same positions (the caller
// has checked that every array has the parameter's dense layout).  The
// per-step scalars (learning rate over the bias correction, ...) come in
// already rounded to float32: Python computes them in float64 with + - * /
// and sqrt only.
#pragma once

#include <cstdint>

namespace repdl {
namespace optim {

// Every update starts from g = sign * grad (sign = -1 for maximize: exact)
// and, where weight_decay != 0 and not decoupled, g = g + weight_decay * p.
struct Common {
  float sign;
  float weight_decay;  // 0: the L2 term is skipped (not added as 0 * p)
};

struct Sgd {
  Common c;
  float lr, momentum, dampening_c;  // dampening_c = fl32(1 - dampening)
  bool first;                       // the momentum buffer starts as g
  bool nesterov;
};
// buf: null when momentum == 0 (no buffer).
void sgd(const Sgd& s, float* p, const float* grad, float* buf, int64_t n);

struct Adam {
  Common c;
  bool decoupled;  // AdamW: p = p * decay before the update, g untouched
  float decay;     // fl32(1 - lr * weight_decay)
  float beta1, beta1_c, beta2, beta2_c;  // beta_c = fl32(1 - beta)
  float bias2_sqrt, eps, step_size;      // fl32(sqrt(1 - beta2^t)), fl32(lr / (1 - beta1^t))
};
// vmax: null unless amsgrad.
void adam(const Adam& s, float* p, const float* grad, float* m, float* v, float* vmax, int64_t n);

struct Rmsprop {
  Common c;
  float lr, alpha, alpha_c, eps, momentum;
};
// gavg: null unless centered; buf: null unless momentum > 0.
void rmsprop(const Rmsprop& s, float* p, const float* grad, float* v, float* gavg, float* buf, int64_t n);

struct Adagrad {
  Common c;
  float clr, eps;  // clr = fl32(lr / (1 + (t - 1) * lr_decay))
};
void adagrad(const Adagrad& s, float* p, const float* grad, float* sum, int64_t n);

// One ISA's loops over a contiguous run of elements.
struct Rows {
  void (*sgd)(const Sgd&, float*, const float*, float*, int64_t);
  void (*adam)(const Adam&, float*, const float*, float*, float*, float*, int64_t);
  void (*rmsprop)(const Rmsprop&, float*, const float*, float*, float*, float*, int64_t);
  void (*adagrad)(const Adagrad&, float*, const float*, float*, int64_t);
};
extern const Rows kGenericRows;
extern const Rows kAvx2Rows;

}  // namespace optim
}  // namespace repdl
