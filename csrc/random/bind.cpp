// Python bindings of the random kernels.  Every draw is called with the
// seed and the draw's first block (offset) as unsigned 64-bit integers, the
// element count, scalar parameters (float32 values as their bit patterns, so
// that no conversion under the caller's FTZ state can flush them;
// thresholds and ranges as integers) and output addresses.  Python
// (src/repdl/random/_cpu.py) has checked everything and advanced the
// generator before the call.
#include <new>

#include "common/pyargs.h"
#include "random/philox.h"

namespace repdl {
namespace {

using random::Stream;

Stream stream(unsigned long long seed, unsigned long long offset) {
  return Stream{random::key_of_seed(seed), offset};
}

// philox_block(c0, c1, c2, c3, k0, k1) -> (w0, w1, w2, w3): one raw block.
PyObject* py_philox_block(PyObject*, PyObject* args) {
  unsigned int c[4], k[2];
  if (!PyArg_ParseTuple(args, "IIIIII", &c[0], &c[1], &c[2], &c[3], &k[0], &k[1])) return nullptr;
  uint32_t ctr[4] = {c[0], c[1], c[2], c[3]}, out[4];
  random::philox4x32_10(ctr, random::Key{k[0], k[1]}, out);
  return Py_BuildValue("(IIII)", out[0], out[1], out[2], out[3]);
}

#define REPDL_PARSE(fmt, ...) \
  if (!PyArg_ParseTuple(args, fmt, __VA_ARGS__)) return nullptr

// philox_blocks(seed, base, stream, nblocks, out_u32): raw blocks on the active row.
PyObject* py_blocks(PyObject*, PyObject* args) {
  unsigned long long seed, base, stream, out;
  long long n;
  REPDL_PARSE("KKKLK", &seed, &base, &stream, &n, &out);
  kernel_call([&] { random::blocks(seed, base, stream, n, as_ptr<uint32_t>(static_cast<int64_t>(out))); });
  Py_RETURN_NONE;
}

// philox_words(seed, offset, n, out_u32)
PyObject* py_words(PyObject*, PyObject* args) {
  unsigned long long seed, offset, out;
  long long n;
  REPDL_PARSE("KKLK", &seed, &offset, &n, &out);
  kernel_call([&] { random::words(stream(seed, offset), n, as_ptr<uint32_t>(static_cast<int64_t>(out))); });
  Py_RETURN_NONE;
}

// philox_uniform(seed, offset, n, plain, a, span, out_f32)
PyObject* py_uniform(PyObject*, PyObject* args) {
  unsigned long long seed, offset, out;
  long long n;
  int plain;
  unsigned int a, span;
  REPDL_PARSE("KKLpIIK", &seed, &offset, &n, &plain, &a, &span, &out);
  kernel_call([&] {
    random::uniform(stream(seed, offset), n, plain != 0, float_from_bits(a), float_from_bits(span),
                    as_ptr<float>(static_cast<int64_t>(out)));
  });
  Py_RETURN_NONE;
}

// philox_normal(seed, offset, n, affine, mean, std, out_f32)
PyObject* py_normal(PyObject*, PyObject* args) {
  unsigned long long seed, offset, out;
  long long n;
  int affine;
  unsigned int mean, stdv;
  REPDL_PARSE("KKLpIIK", &seed, &offset, &n, &affine, &mean, &stdv, &out);
  kernel_call([&] {
    random::normal(stream(seed, offset), n, affine != 0, float_from_bits(mean), float_from_bits(stdv),
                   as_ptr<float>(static_cast<int64_t>(out)));
  });
  Py_RETURN_NONE;
}

// normal_from_words(words_u32, n, out_f32): the Box-Muller transform alone.
PyObject* py_normal_from_words(PyObject*, PyObject* args) {
  unsigned long long w, out;
  long long n;
  REPDL_PARSE("KLK", &w, &n, &out);
  kernel_call([&] {
    random::normal_from_words(as_ptr<const uint32_t>(static_cast<int64_t>(w)), n,
                              as_ptr<float>(static_cast<int64_t>(out)));
  });
  Py_RETURN_NONE;
}

// philox_randint(seed, offset, n, low, range, out, is_int32)
PyObject* py_randint(PyObject*, PyObject* args) {
  unsigned long long seed, offset, range, out;
  long long n, low;
  int is32;
  REPDL_PARSE("KKLLKKp", &seed, &offset, &n, &low, &range, &out, &is32);
  const int64_t addr = static_cast<int64_t>(out);
  kernel_call([&] {
    random::randint(stream(seed, offset), n, low, range, is32 ? nullptr : as_ptr<int64_t>(addr),
                    is32 ? as_ptr<int32_t>(addr) : nullptr);
  });
  Py_RETURN_NONE;
}

// philox_perm_keys(seed, offset, n, out_i64)
PyObject* py_perm_keys(PyObject*, PyObject* args) {
  unsigned long long seed, offset, out;
  long long n;
  REPDL_PARSE("KKLK", &seed, &offset, &n, &out);
  kernel_call([&] { random::perm_keys(stream(seed, offset), n, as_ptr<int64_t>(static_cast<int64_t>(out))); });
  Py_RETURN_NONE;
}

// philox_randperm(seed, offset, n, out, is_int32)
PyObject* py_randperm(PyObject*, PyObject* args) {
  unsigned long long seed, offset, out;
  long long n;
  int is32;
  REPDL_PARSE("KKLKp", &seed, &offset, &n, &out, &is32);
  const int64_t addr = static_cast<int64_t>(out);
  bool no_memory = false;
  kernel_call([&] {
    try {
      random::randperm(stream(seed, offset), n, is32 ? nullptr : as_ptr<int64_t>(addr),
                       is32 ? as_ptr<int32_t>(addr) : nullptr);
    } catch (const std::bad_alloc&) {
      no_memory = true;
    }
  });
  if (no_memory) return PyErr_NoMemory();
  Py_RETURN_NONE;
}

// philox_bernoulli_scalar(seed, offset, n, threshold, out_f32)
PyObject* py_bernoulli_scalar(PyObject*, PyObject* args) {
  unsigned long long seed, offset, out;
  long long n;
  unsigned int threshold;
  REPDL_PARSE("KKLIK", &seed, &offset, &n, &threshold, &out);
  kernel_call([&] {
    random::bernoulli_scalar(stream(seed, offset), n, threshold, as_ptr<float>(static_cast<int64_t>(out)));
  });
  Py_RETURN_NONE;
}

// philox_bernoulli_tensor(seed, offset, n, p_f32, out_f32)
PyObject* py_bernoulli_tensor(PyObject*, PyObject* args) {
  unsigned long long seed, offset, p, out;
  long long n;
  REPDL_PARSE("KKLKK", &seed, &offset, &n, &p, &out);
  kernel_call([&] {
    random::bernoulli_tensor(stream(seed, offset), n, as_ptr<const float>(static_cast<int64_t>(p)),
                             as_ptr<float>(static_cast<int64_t>(out)));
  });
  Py_RETURN_NONE;
}

// philox_dropout(seed, offset, n, threshold, scale, x_f32, y_f32)
PyObject* py_dropout(PyObject*, PyObject* args) {
  unsigned long long seed, offset, x, y;
  long long n;
  unsigned int threshold;
  unsigned int scale;
  REPDL_PARSE("KKLIIKK", &seed, &offset, &n, &threshold, &scale, &x, &y);
  kernel_call([&] {
    random::dropout(stream(seed, offset), n, threshold, float_from_bits(scale), as_ptr<const float>(static_cast<int64_t>(x)),
                    as_ptr<float>(static_cast<int64_t>(y)));
  });
  Py_RETURN_NONE;
}

// philox_keep_mask(seed, offset, n, threshold, out_u8)
PyObject* py_keep_mask(PyObject*, PyObject* args) {
  unsigned long long seed, offset, out;
  long long n;
  unsigned int threshold;
  REPDL_PARSE("KKLIK", &seed, &offset, &n, &threshold, &out);
  kernel_call([&] {
    random::keep_mask(stream(seed, offset), n, threshold, as_ptr<uint8_t>(static_cast<int64_t>(out)));
  });
  Py_RETURN_NONE;
}

// philox_trunc_normal(seed, offset, n, mean, std, a, b, out_f32)
PyObject* py_trunc_normal(PyObject*, PyObject* args) {
  unsigned long long seed, offset, out;
  long long n;
  unsigned int mean, stdv, a, b;
  REPDL_PARSE("KKLIIIIK", &seed, &offset, &n, &mean, &stdv, &a, &b, &out);
  kernel_call([&] {
    random::trunc_normal(stream(seed, offset), n, float_from_bits(mean), float_from_bits(stdv), float_from_bits(a),
                         float_from_bits(b), as_ptr<float>(static_cast<int64_t>(out)));
  });
  Py_RETURN_NONE;
}

#undef REPDL_PARSE

const PyMethodDef kMethods[] = {
    {"philox_block", py_philox_block, METH_VARARGS, "One Philox4x32-10 block: (c0..c3, k0, k1) -> 4 words."},
    {"philox_blocks", py_blocks, METH_VARARGS, "Raw blocks (base + t, stream) on the active ISA row."},
    {"philox_words", py_words, METH_VARARGS, "The raw stream of 32-bit words of a draw."},
    {"philox_uniform", py_uniform, METH_VARARGS, "Uniform float32 draw."},
    {"philox_normal", py_normal, METH_VARARGS, "Normal float32 draw (Box-Muller)."},
    {"philox_normal_from_words", py_normal_from_words, METH_VARARGS, "Box-Muller of given words."},
    {"philox_randint", py_randint, METH_VARARGS, "Bounded integer draw."},
    {"philox_perm_keys", py_perm_keys, METH_VARARGS, "64-bit sort keys for randperm."},
    {"philox_randperm", py_randperm, METH_VARARGS, "Random permutation: indices sorted by 64-bit keys."},
    {"philox_bernoulli_scalar", py_bernoulli_scalar, METH_VARARGS, "Bernoulli draw with one threshold."},
    {"philox_bernoulli_tensor", py_bernoulli_tensor, METH_VARARGS, "Bernoulli draw with per-element p."},
    {"philox_dropout", py_dropout, METH_VARARGS, "Dropout applied: y = x * (keep ? scale : 0)."},
    {"philox_keep_mask", py_keep_mask, METH_VARARGS, "Dropout keep-mask as bytes."},
    {"philox_trunc_normal", py_trunc_normal, METH_VARARGS, "Truncated normal draw by rejection."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

MethodTable random_methods() { return kMethods; }

}  // namespace repdl
