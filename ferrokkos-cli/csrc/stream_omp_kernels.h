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
