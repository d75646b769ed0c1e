/* BabelStream's kernels written with OpenMP, for one element type: included by stream_omp.c once
 * per type with REAL (the type) and STREAM_NAME(kernel) (the exported name) defined. Each function
 * takes the array length and the number of threads (the `num_threads` clause, so that the peer
 * runs on exactly as many threads as the ferrokkos space it is compared with, whatever
 * OMP_NUM_THREADS says); the loops use static schedules, like BabelStream's OMP model, so each
 * thread works on the same block of every array, the block it first touched in `init`. */

/* a = a0, b = b0, c = c0, in parallel (first touch). */
void STREAM_NAME(init)(REAL *restrict a, REAL *restrict b, REAL *restrict c, REAL a0, REAL b0,
                       REAL c0, size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) {
        a[i] = a0;
        b[i] = b0;
        c[i] = c0;
    }
}

/* Copy: c = a. */
void STREAM_NAME(copy)(const REAL *restrict a, REAL *restrict c, size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        c[i] = a[i];
}

/* Mul: b = s c. */
void STREAM_NAME(mul)(REAL *restrict b, const REAL *restrict c, REAL s, size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        b[i] = s * c[i];
}

/* Add: c = a + b. */
void STREAM_NAME(add)(const REAL *restrict a, const REAL *restrict b, REAL *restrict c, size_t n,
                      int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

/* Triad: a = b + s c. */
void STREAM_NAME(triad)(REAL *restrict a, const REAL *restrict b, const REAL *restrict c, REAL s,
                        size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

/* Nstream: a += b + s c. */
void STREAM_NAME(nstream)(REAL *restrict a, const REAL *restrict b, const REAL *restrict c, REAL s,
                          size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        a[i] += b[i] + s * c[i];
}

/* Dot: the sum of a b. */
REAL STREAM_NAME(dot)(const REAL *restrict a, const REAL *restrict b, size_t n, int threads)
{
    REAL sum = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
    for (size_t i = 0; i < n; i++)
        sum += a[i] * b[i];
    return sum;
}

/* The block of `n` elements that the calling thread of a parallel region gets under a static
 * schedule (OpenMP's: the first n % threads threads one element more), so that a hand-split
 * kernel works on the same block that `init` first touched. Defined once, for both types. */
#ifndef STREAM_OMP_STATIC_BLOCK
#define STREAM_OMP_STATIC_BLOCK
static void stream_static_block(size_t n, size_t *begin, size_t *count)
{
    size_t threads = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
    size_t q = n / threads, r = n % threads;
    *count = q + (t < r);
    *begin = t * q + (t < r ? t : r);
}
#endif

/* DeepCopy's peer: c = a, one memcpy per thread over its static block. */
void STREAM_NAME(deep_copy)(const REAL *restrict a, REAL *restrict c, size_t n, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        size_t begin, count;
        stream_static_block(n, &begin, &count);
        memcpy(c + begin, a + begin, count * sizeof(REAL));
    }
}

/* Fill's peer: c = value, a static parallel loop (gcc may make each thread's part a memset-like
 * store loop). */
void STREAM_NAME(fill)(REAL *restrict c, REAL value, size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++)
        c[i] = value;
}
