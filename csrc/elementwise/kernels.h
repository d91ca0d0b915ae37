// Every kernel, written once in the row vocabulary.  Included inside a row
// namespace (generic_row, avx2_row) after that row's vocabulary header.
// Adding a function: a new fn/<name>.h here, one X(...) entry in cr.h.
#include "elementwise/fn/common.h"
#include "elementwise/fn/exp.h"
#include "elementwise/fn/exp2.h"
#include "elementwise/fn/expm1.h"
#include "elementwise/fn/log.h"
#include "elementwise/fn/log2.h"
#include "elementwise/fn/log10.h"
#include "elementwise/fn/log1p.h"
#include "elementwise/fn/sqrt.h"
#include "elementwise/fn/rsqrt.h"
#include "elementwise/fn/reciprocal.h"
#include "elementwise/fn/sin.h"
#include "elementwise/fn/cos.h"
