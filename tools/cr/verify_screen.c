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

/* The erf family.  gelu near 0: for 0 < |x| < 2^-60, gelu(x) = x/2 + x^2/sqrt(2 pi) + O(x^4)
 * (both forms) lies above x/2 by less than 2^-60 |x/2|, and x/2 (exact) is a float32 value
 * or, for subnormal results, a rounding midpoint: the result is x/2, or the float32 neighbour
 * above the midpoint.  Returned as that float32 value (not near a midpoint). */
static long double gelu_near_zero(long double x) {
  long double v = 0.5L * x;
  float r = (float)v;
  if ((long double)r == v || (long double)r > v) return r;
  return nextafterf(r, INFINITY);
}
/* (x/2) erfc(-x/sqrt 2) with -x/sqrt 2 = zh + zl, zh = -x CH exact (CH = 1/sqrt 2 to 40
 * bits), |zl| < 2^-40 |x|: erfc(zh + zl) = erfc(zh) - (2/sqrt pi) e^(-zh^2) zl (1 - zh zl)
 * + O(|zh zl|^3), so the rounding of the argument never meets erfc's condition number 2 z^2
 * (about 210 at x = -14.7); the remainder is below 2^-70. */
static long double f_gelu(long double x) {
  const long double ch = 0x5a827999fdp-39L, cl = -0x866dee9a09d9322bp-106L, k = 0x906eba8214db688dp-63L;
  if (isinf(x)) return x > 0 ? x : -0.0L;
  if (fabsl(x) < 0x1p-60L) return gelu_near_zero(x);
  long double zh = -x * ch, zl = -x * cl;
  return 0.5L * x * (erfcl(zh) - k * expl(-zh * zh) * zl * (1.0L - zh * zl));
}
/* x / (1 + e^-t) with t = A x + B x^3 (A = 2 sqrt(2/pi), B = 0.044715 A, real constants) as
 * x E / (1 + E) for x < 0, E = e^-|t|.  Near x = -11, E is e^-112, so t is needed to 2^-60
 * absolutely: x^3 = x (x2h + x2l) exactly (x^2 exact, x2h its top 32 bits), A = A1 + A2 (A1
 * of 40 bits), B = B1 + B2 (B1 of 8 bits), so A1 x, B1 x x2h and B1 x x2l are exact; with
 * B2 x^3 (< 2^-10 |t|, one rounding) they are summed by TwoSum into th + tl, to which A2 x
 * (< 2^-39) is added.  |error of t| < 2^-72 |t|, below 2^-60 for |x| <= 40. */
static long double two_sum(long double a, long double b, long double* e) {
  long double s = a + b, bb = s - a;
  *e = (a - (s - bb)) + (b - bb);
  return s;
}
static long double f_gelu_tanh(long double x) {
  const long double a1 = 0x662114cf51p-38L, a2 = -0x9af72f034c3aff45p-104L;
  const long double b1 = 0x49p-10L, b2 = 0x2279526c5a57a4dfp-75L;
  if (isinf(x)) return x > 0 ? x : -0.0L;
  if (fabsl(x) < 0x1p-60L) return gelu_near_zero(x);
  if (x > 40) return x;      /* E < e^-2900 */
  if (x < -40) return -0.0L; /* |f| < 40 e^-2900 */
  long double x2 = x * x, c = x2 * 0x100000001p0L;
  long double x2h = c - (c - x2), x2l = x2 - x2h;
  long double x3a = x * x2h, x3b = x * x2l, e1, e2, e3;
  long double s1 = two_sum(a1 * x, b1 * x3a, &e1);
  long double s2 = two_sum(s1, b2 * (x3a + x3b), &e2);
  long double th = two_sum(s2, b1 * x3b, &e3);
  long double tl = ((e1 + e2) + e3) + a2 * x;
  long double big_e = expl(-fabsl(th)) * (1.0L + (x < 0 ? tl : -tl));
  return (x < 0 ? x * big_e : x) / (1.0L + big_e);
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
    {"erf", erfl},     {"erfc", erfcl},   {"gelu", f_gelu},  {"gelu_tanh", f_gelu_tanh},
};

static fn_t function(const char* name) {
  for (size_t i = 0; i < sizeof kFunctions / sizeof kFunctions[0]; ++i)
    if (strcmp(kFunctions[i].name, name) == 0) return kFunctions[i].f;
  return 0;
}

/* Functions whose float64 evaluations (C++ rows and reference) return, for |x| below a
 * bound, a value chosen to round like f(x) rather than one within an ulp of it (gelu near 0:
 * csrc/elementwise/fn/erf_family.h); their float64 error is measured for |x| >= the bound. */
static const struct {
  const char* name;
  long double from;
} kErrorFrom[] = {{"gelu", 0x1p-60L}, {"gelu_tanh", 0x1p-60L}};

static long double error_from(const char* name) {
  for (size_t i = 0; i < sizeof kErrorFrom / sizeof kErrorFrom[0]; ++i)
    if (strcmp(kErrorFrom[i].name, name) == 0) return kErrorFrom[i].from;
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
  const long double from = error_from(name);
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
    if (n64 == 0 || !(a >= 0x1p-151L && a < 0x1p129L) || fabsl((long double)x) < from) continue;
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
