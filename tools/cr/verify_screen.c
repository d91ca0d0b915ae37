/* Screen for tools/cr/verify.py: for each float32 input, the correctly
 * rounded float32 result from x87 long double libm (64-bit significand,
 * error a few units of 2^-63), independent of RepDL's float64 code and
 * tables.  Inputs whose long double value lies within 2^-50 (relative) of
 * a float32 rounding midpoint are handed back to be settled with MPFR.
 *
 * Also measures the error of float64 evaluations (RepDL's C++ rows, the
 * reference's torch float64 formula) in units of the float64 ulp of the
 * true value's binade, for true values in [2^-151, 2^129).
 *
 * Built by verify.py with: cc -O2 -fno-fast-math -shared -fPIC ... -lm
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef long double (*fn_t)(long double);

static long double f_rsqrt(long double x) { return 1.0L / sqrtl(x); }
static long double f_recip(long double x) { return 1.0L / x; }

/* Activations (cancellation-free forms, as in the float64 formulas of the
 * reference: u = e^-|x| <= 1, so every sum has terms of one sign). */
static long double f_sigmoid(long double x) {
  long double u = expl(-fabsl(x));
  return (x < 0 ? u : 1.0L) / (1.0L + u);
}
static long double f_logsigmoid(long double x) { return -(log1pl(expl(-fabsl(x))) - (x < 0 ? x : 0.0L)); }
static long double f_softplus(long double x) { return (x > 0 ? x : 0.0L) + log1pl(expl(-fabsl(x))); }
static long double f_silu(long double x) {
  if (isinf(x)) return x > 0 ? x : -0.0L;
  long double u = expl(-fabsl(x));
  return (x < 0 ? x * u : x) / (1.0L + u);
}
static long double f_mish(long double x) { /* x tanh(ln(1 + u)) = x n / (n + 2), n = u (u + 2), u = e^x */
  if (isinf(x)) return x > 0 ? x : -0.0L;
  if (x > 60) return x; /* 1 - n / (n + 2) < 2^-170 */
  long double u = expl(x), n = u * (u + 2.0L);
  return x * (n / (n + 2.0L));
}
static long double f_elu(long double x) { return x > 0 ? x : expm1l(x); }
static long double f_selu(long double x) { /* float32 S and A; S A has 48 bits: exact */
  const long double s = 0x1.0cfabep+0L, a = 0x1.ac5afap+0L;
  return x > 0 ? s * x : (s * a) * expm1l(x);
}

/* The screen of each function: its long double evaluation (error a few
 * 2^-63, far below the 2^-50 screen window). */
static const struct {
  const char* name;
  fn_t f;
} kFunctions[] = {
    {"exp", expl},     {"exp2", exp2l},   {"expm1", expm1l}, {"log", logl},          {"log2", log2l},
    {"log10", log10l}, {"log1p", log1pl}, {"sqrt", sqrtl},   {"rsqrt", f_rsqrt},     {"reciprocal", f_recip},
    {"sin", sinl},     {"cos", cosl},
    {"tanh", tanhl},   {"sigmoid", f_sigmoid}, {"logsigmoid", f_logsigmoid}, {"softplus", f_softplus},
    {"silu", f_silu},  {"mish", f_mish},   {"elu", f_elu},    {"selu", f_selu},
};

static fn_t function(const char* name) {
  for (size_t i = 0; i < sizeof kFunctions / sizeof kFunctions[0]; ++i)
    if (strcmp(kFunctions[i].name, name) == 0) return kFunctions[i].f;
  return 0;
}

/* 1 when the screen knows `name`. */
int has_function(const char* name) { return function(name) != 0; }

static uint32_t bits_of(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

/* 1 when v is within 2^-50 |v| of a float32 rounding midpoint. */
static int near_midpoint(long double v, float r) {
  if (!(v == v)) return 0;
  long double m1, m2;
  if (isinf(r)) {
    long double m = (long double)3.4028234663852886e38L + 0x1p103L;  /* FLT_MAX + half ulp */
    m1 = r > 0 ? m : -m;
    m2 = m1;
  } else {
    m1 = ((long double)r + (long double)nextafterf(r, INFINITY)) / 2;
    m2 = ((long double)r + (long double)nextafterf(r, -INFINITY)) / 2;
  }
  long double a = fabsl(v) * 0x1p-50L;
  if (isinf(v)) return 0;
  return fabsl(v - m1) <= a || fabsl(v - m2) <= a;
}

/* One pass of the long double libm over n inputs:
 *   want[i]  float32 bits of the correctly rounded result (NaN: 0x7FC00000),
 *            valid where near[i] == 0;
 *   near[i]  1 when the long double value lies within 2^-50 of a midpoint
 *            (the caller settles those with MPFR);
 *   for k < n64 float64 evaluations y64[k][0..n): err[k] = the largest
 *   |y64 - f(x)| in float64 ulps of f(x)'s binade over |f(x)| in
 *   [2^-151, 2^129), at index where[k] (NaN errors are reported as NaN). */
void screen(const char* name, const uint32_t* xs, int64_t n, uint32_t* want, uint8_t* near, int n64,
            const double* const* y64, double* err, int64_t* where) {
  fn_t f = function(name);
  for (int k = 0; k < n64; ++k) {
    err[k] = 0;
    where[k] = -1;
  }
  for (int64_t i = 0; i < n; ++i) {
    float x;
    memcpy(&x, xs + i, 4);
    long double v = f((long double)x);
    float r = (float)v;
    near[i] = (uint8_t)near_midpoint(v, r);
    want[i] = (r != r) ? 0x7FC00000u : bits_of(r);
    long double a = fabsl(v);
    if (n64 == 0 || !(a >= 0x1p-151L && a < 0x1p129L)) continue;
    /* ulp = 2^(e - 52) for a in [2^e, 2^(e+1)), e read from the x87 format */
    uint16_t se;
    memcpy(&se, (const char*)&a + 8, 2);
    long double ulp = ldexpl(1.0L, (int)(se & 0x7FFF) - 16383 - 52);
    for (int k = 0; k < n64; ++k) {
      double d = (double)(fabsl((long double)y64[k][i] - v) / ulp);
      if (!(d <= err[k])) {
        if (err[k] == err[k]) where[k] = i;
        err[k] = d;
      }
    }
  }
}
