/* common/rng.h: the PCG random generator (M. E. O'Neill, "PCG: A Family of
 * Simple Fast Space-Efficient Statistically Good Algorithms for Random Number
 * Generation", HMC-CS-2014-0905): 64-bit LCG state, XSH-RR output to 32 bits.
 * All randomness in trainplan comes from here; one stream per index keeps
 * results independent of the thread count. */
#ifndef TPL_RNG_H
#define TPL_RNG_H

#include <stdint.h>

struct tpl_rng {
    uint64_t state;
    uint64_t inc;               /* stream selector, always odd */
};

void     tpl_rng_seed(struct tpl_rng *r, uint64_t seed, uint64_t stream);
uint32_t tpl_rng_u32(struct tpl_rng *r);
uint32_t tpl_rng_below(struct tpl_rng *r, uint32_t bound);  /* uniform in [0, bound) */
uint64_t tpl_rng_u64_below(struct tpl_rng *r, uint64_t bound);
double   tpl_rng_unit(struct tpl_rng *r);                   /* uniform in [0, 1) */

#endif /* TPL_RNG_H */
