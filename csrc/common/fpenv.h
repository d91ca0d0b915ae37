// The floating-point environment the contract assumes: round to nearest
// even, no flush-to-zero, no denormals-are-zero.  torch.set_flush_denormal,
// a foreign library or user code may have changed the calling thread's
// control register; every binding's call of its kernel (pyargs.h,
// kernel_call), every worker thread inside a parallel region and every
// reference-backend call on the CPU therefore switches to IEEE defaults for
// the duration of its work and restores the caller's state afterwards.
//
// One implementation per architecture the package builds on:
//   x86-64 / x86: MXCSR.  Cleared: FTZ (bit 15), rounding control (13-14),
//                 DAZ (6).  Exception masks and flags are kept.
//   AArch64:      FPCR.  Cleared: FZ (24), RMode (22-23), FZ16 (19), and
//                 FEAT_AFP's NEP (2), AH (1), FIZ (0) -- AH and FIZ also flush
//                 or alter NaN/denormal handling; on cores without FEAT_AFP
//                 those bits are RES0, so writing 0 there is always valid.
//   others:       <cfenv>'s FE_DFL_ENV, which is IEEE default by definition.
#pragma once

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#elif !defined(__aarch64__)
#include <cfenv>
#endif

namespace repdl {

#if defined(__x86_64__) || defined(__i386__)
using FpState = unsigned;
inline FpState fp_state_enter_ieee() {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved & ~0xE040u);
  return saved;
}
inline void fp_state_restore(FpState saved) { _mm_setcsr(saved); }
#elif defined(__aarch64__)
using FpState = uint64_t;
inline FpState fp_state_enter_ieee() {
  uint64_t saved;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved));
  const uint64_t ieee = saved & ~((uint64_t{1} << 24) | (uint64_t{3} << 22) | (uint64_t{1} << 19) | uint64_t{7});
  if (ieee != saved) __asm__ __volatile__("msr fpcr, %0" : : "r"(ieee));
  return saved;
}
inline void fp_state_restore(FpState saved) {
  uint64_t now;
  __asm__ __volatile__("mrs %0, fpcr" : "=r"(now));
  if (now != saved) __asm__ __volatile__("msr fpcr, %0" : : "r"(saved));
}
#else
using FpState = std::fenv_t;
inline FpState fp_state_enter_ieee() {
  std::fenv_t saved;
  std::fegetenv(&saved);
  std::fesetenv(FE_DFL_ENV);
  return saved;
}
inline void fp_state_restore(FpState saved) { std::fesetenv(&saved); }
#endif

// Holds the IEEE default environment on the calling thread for its lifetime.
class IeeeFpGuard {
 public:
  IeeeFpGuard() : saved_(fp_state_enter_ieee()) {}
  ~IeeeFpGuard() { fp_state_restore(saved_); }
  IeeeFpGuard(const IeeeFpGuard&) = delete;
  IeeeFpGuard& operator=(const IeeeFpGuard&) = delete;

 private:
  FpState saved_;
};

}  // namespace repdl
