// The portable row of random kernels (row_impl.h compiled for the baseline ISA).
#define REPDL_RANDOM_ROW generic
#include "random/row_impl.h"
