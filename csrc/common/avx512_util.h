// AVX-512F helpers shared by the AVX-512 kernel files.  Include after
// `#pragma GCC target("avx512f,...")`, inside that file's anonymous namespace
// (an inline function from a header would be merged across instruction
// sets by the linker).
inline __m512 canonical_nan16(__m512 v) {
  return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q),
                            _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
}
