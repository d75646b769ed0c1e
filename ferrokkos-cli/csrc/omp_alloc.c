/* The arrays of the OpenMP peers (ferrokkos-cli's `stream --compare` and `stencil --compare`):
 * aligned allocations (64 bytes, or 2 MiB so that transparent huge pages can back a large array),
 * zeroed in parallel by the OpenMP threads that later work on them (first touch, static blocks),
 * so that a fresh array is never read uninitialized. Freed by the Rust owner's Drop. */

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* `bytes` bytes aligned to `alignment` (a power of two, a multiple of sizeof(void *)), zeroed by
 * `threads` threads, each its own contiguous block; NULL when the allocation fails. */
void *ferrokkos_omp_alloc_zeroed(size_t bytes, size_t alignment, int threads)
{
    void *memory = NULL;
    if (bytes == 0)
        bytes = 1;
    if (posix_memalign(&memory, alignment, bytes) != 0)
        return NULL;
    char *base = memory;
#pragma omp parallel num_threads(threads)
    {
        size_t count = (size_t)omp_get_num_threads();
        size_t block = (bytes + count - 1) / count;
        size_t lo = (size_t)omp_get_thread_num() * block;
        if (lo < bytes) {
            size_t hi = lo + block < bytes ? lo + block : bytes;
            memset(base + lo, 0, hi - lo);
        }
    }
    return memory;
}

/* Frees what ferrokkos_omp_alloc_zeroed returned (NULL: nothing). */
void ferrokkos_omp_free(void *memory)
{
    free(memory);
}
