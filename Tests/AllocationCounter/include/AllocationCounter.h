#ifndef INTERVALPRO_ALLOCATION_COUNTER_H
#define INTERVALPRO_ALLOCATION_COUNTER_H

/// Heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc) made so far
/// by the calling thread. Tests read it before and after code that must not allocate.
long intervalpro_allocations_on_this_thread(void);

#endif
