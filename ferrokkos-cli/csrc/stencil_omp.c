/* The OpenMP peer of ferrokkos-cli's `stencil --compare`: the 9-point stencil sweep, the kernels
 * of a matrix-free CG on the 5-point Laplacian and those of TeaLeaf-shaped CG (TeaLeaf's operator
 * with variable face coefficients), written in C with OpenMP, on (n + 2) x (n + 2)
 * row-major grids of doubles (n x n interior cells and one layer of halo cells; cell (i, j) at
 * i * (n + 2) + j). Each kernel is one `#pragma omp parallel for` over the rows with a static
 * schedule and an inner loop over the columns, on exactly `threads` threads (`num_threads`, so
 * that the peer runs on as many threads as the ferrokkos space it is compared with). The arithmetic
 * is written in the same order as ferrokkos' kernels and the Rust peer (see
 * ferrokkos-cli/src/stencil/problem.rs), and the build turns off floating-point contraction, so the
 * sweep's fields match theirs bit for bit. */

#include <stddef.h>

/* The sweep's start value of cell (i, j), halo included: ((7 i + 13 j) mod 32) / 32. */
static double sweep_start(size_t i, size_t j)
{
    return (double)((i * 7 + j * 13) % 32) / 32.0;
}

/* CG's right-hand side at interior cell (i, j): ((5 i + 3 j) mod 17) / 16 - 1/2. */
static double cg_rhs(size_t i, size_t j)
{
    return (double)((i * 5 + j * 3) % 17) / 16.0 - 0.5;
}

/* TeaLeaf-shaped CG's face coefficient kx at cell (i, j), halo included:
 * 1/4 + ((3 i + 5 j) mod 16) / 64, exact in binary. */
static double tea_kx(long long i, long long j)
{
    return 0.25 + (double)((i * 3 + j * 5) % 16) / 64.0;
}

/* TeaLeaf-shaped CG's face coefficient ky at cell (i, j), halo included:
 * 1/4 + ((7 i + 3 j) mod 16) / 64. */
static double tea_ky(long long i, long long j)
{
    return 0.25 + (double)((i * 7 + j * 3) % 16) / 64.0;
}

/* u = v = the start values on every cell, halo included (rows in parallel: first touch). */
void ferrokkos_stencil_sweep_init(double *restrict u, double *restrict v, size_t n, int threads)
{
    size_t w = n + 2;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < w; i++)
        for (size_t j = 0; j < w; j++) {
            u[i * w + j] = sweep_start(i, j);
            v[i * w + j] = sweep_start(i, j);
        }
}

/* One sweep over the interior: v = c0 u + c1 (the 4 edge neighbours) + c2 (the 4 corners). */
void ferrokkos_stencil_sweep(const double *restrict u, double *restrict v, size_t n, double c0,
                             double c1, double c2, int threads)
{
    size_t w = n + 2;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 1; i <= n; i++) {
        const double *up = u + (i - 1) * w;
        const double *mid = u + i * w;
        const double *down = u + (i + 1) * w;
        double *out = v + i * w;
        for (size_t j = 1; j <= n; j++)
            out[j] = c0 * mid[j] + c1 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]) +
                     c2 * (up[j - 1] + up[j + 1] + down[j - 1] + down[j + 1]);
    }
}

/* CG's start, on every cell: x = 0, r = p = the right-hand side (0 on the halo), ap = 0. */
void ferrokkos_stencil_cg_reset(double *restrict x, double *restrict r, double *restrict p,
                                double *restrict ap, size_t n, int threads)
{
    size_t w = n + 2;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < w; i++)
        for (size_t j = 0; j < w; j++) {
            int inside = i >= 1 && i <= n && j >= 1 && j <= n;
            double b = inside ? cg_rhs(i, j) : 0.0;
            x[i * w + j] = 0.0;
            r[i * w + j] = b;
            p[i * w + j] = b;
            ap[i * w + j] = 0.0;
        }
}

/* ap = A p on the interior, A the 5-point Laplacian: 4 p - (the 4 edge neighbours). */
void ferrokkos_stencil_cg_apply(const double *restrict p, double *restrict ap, size_t n,
                                int threads)
{
    size_t w = n + 2;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 1; i <= n; i++) {
        const double *up = p + (i - 1) * w;
        const double *mid = p + i * w;
        const double *down = p + (i + 1) * w;
        double *out = ap + i * w;
        for (size_t j = 1; j <= n; j++)
            out[j] = 4.0 * mid[j] - (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
    }
}

/* The sum of a b over the interior. */
double ferrokkos_stencil_cg_dot(const double *restrict a, const double *restrict b, size_t n,
                                int threads)
{
    size_t w = n + 2;
    double sum = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= n; j++)
            sum += a[i * w + j] * b[i * w + j];
    return sum;
}

/* y += a x on the interior (CG's x += alpha p, and r += (-alpha) ap). */
void ferrokkos_stencil_cg_axpy(double *restrict y, const double *restrict x, double a, size_t n,
                               int threads)
{
    size_t w = n + 2;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= n; j++)
            y[i * w + j] += a * x[i * w + j];
}

/* p = r + beta p on the interior (CG's new search direction). */
void ferrokkos_stencil_cg_direction(double *restrict p, const double *restrict r, double beta,
                                    size_t n, int threads)
{
    size_t w = n + 2;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= n; j++)
            p[i * w + j] = r[i * w + j] + beta * p[i * w + j];
}

/* TeaLeaf-shaped CG's face coefficients kx and ky on every cell, halo included (set once). */
void ferrokkos_stencil_tea_init(double *restrict kx, double *restrict ky, size_t n, int threads)
{
    size_t width = n + 2;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < width; i++)
        for (size_t j = 0; j < width; j++) {
            kx[i * width + j] = tea_kx((long long)i, (long long)j);
            ky[i * width + j] = tea_ky((long long)i, (long long)j);
        }
}

/* TeaLeaf-shaped CG's start, on every cell: u = 0, r = p = the right-hand side (0 on the halo),
 * w = 0. Returns r . r over the interior. */
double ferrokkos_stencil_tea_reset(double *restrict u, double *restrict r, double *restrict p,
                                   double *restrict w, size_t n, int threads)
{
    size_t width = n + 2;
    double sum = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
    for (size_t i = 0; i < width; i++)
        for (size_t j = 0; j < width; j++) {
            int inside = i >= 1 && i <= n && j >= 1 && j <= n;
            double b = inside ? cg_rhs(i, j) : 0.0;
            u[i * width + j] = 0.0;
            r[i * width + j] = b;
            p[i * width + j] = b;
            w[i * width + j] = 0.0;
            if (inside)
                sum += b * b;
        }
    return sum;
}

/* w = A p on the interior, A TeaLeaf's operator (its order of operations):
 *   w = (1 + (kx[i+1][j] + kx[i][j]) + (ky[i][j+1] + ky[i][j])) p[i][j]
 *     - (kx[i+1][j] p[i+1][j] + kx[i][j] p[i-1][j]) - (ky[i][j+1] p[i][j+1] + ky[i][j] p[i][j-1]).
 * Returns p . w over the interior. */
double ferrokkos_stencil_tea_w(const double *restrict kx, const double *restrict ky,
                               const double *restrict p, double *restrict w, size_t n, int threads)
{
    size_t width = n + 2;
    double sum = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
    for (size_t i = 1; i <= n; i++) {
        const double *up = p + (i - 1) * width;
        const double *mid = p + i * width;
        const double *down = p + (i + 1) * width;
        const double *kx_mid = kx + i * width;
        const double *kx_down = kx + (i + 1) * width;
        const double *ky_mid = ky + i * width;
        double *out = w + i * width;
        for (size_t j = 1; j <= n; j++) {
            double wij = (1.0 + (kx_down[j] + kx_mid[j]) + (ky_mid[j + 1] + ky_mid[j])) * mid[j] -
                         (kx_down[j] * down[j] + kx_mid[j] * up[j]) -
                         (ky_mid[j + 1] * mid[j + 1] + ky_mid[j] * mid[j - 1]);
            out[j] = wij;
            sum += mid[j] * wij;
        }
    }
    return sum;
}

/* u += alpha p and r -= alpha w on the interior. Returns the new r . r over the interior. */
double ferrokkos_stencil_tea_ur(double *restrict u, double *restrict r, const double *restrict p,
                                const double *restrict w, double alpha, size_t n, int threads)
{
    size_t width = n + 2;
    double sum = 0.0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : sum)
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= n; j++) {
            size_t k = i * width + j;
            u[k] += alpha * p[k];
            r[k] -= alpha * w[k];
            sum += r[k] * r[k];
        }
    return sum;
}

/* p = r + beta p on the interior (TeaLeaf-shaped CG's new search direction). */
void ferrokkos_stencil_tea_p(double *restrict p, const double *restrict r, double beta, size_t n,
                             int threads)
{
    size_t width = n + 2;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= n; j++)
            p[i * width + j] = r[i * width + j] + beta * p[i * width + j];
}
