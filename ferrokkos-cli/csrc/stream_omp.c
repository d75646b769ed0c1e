/* The OpenMP peer of ferrokkos-cli's `stream --compare`: BabelStream's kernels (Copy, Mul, Add,
 * Triad, Dot, Nstream) and its parallel initialization, written in C with OpenMP like
 * BabelStream's OMP model, and the peers of the deep_copy kernels (DeepCopy, Fill), for double
 * (ferrokkos_stream_*_f64) and float (ferrokkos_stream_*_f32). The kernels themselves are in
 * stream_omp_kernels.h, included once per type. */

#include <omp.h>
#include <stddef.h>
#include <string.h>

#define STREAM_CONCAT(kernel, suffix) ferrokkos_stream_##kernel##_##suffix
#define STREAM_EXPAND(kernel, suffix) STREAM_CONCAT(kernel, suffix)
#define STREAM_NAME(kernel) STREAM_EXPAND(kernel, STREAM_SUFFIX)

#define REAL double
#define STREAM_SUFFIX f64
#include "stream_omp_kernels.h"
#undef REAL
#undef STREAM_SUFFIX

#define REAL float
#define STREAM_SUFFIX f32
#include "stream_omp_kernels.h"
#undef REAL
#undef STREAM_SUFFIX
