/* common/rng.c: PCG32 (XSH-RR), following the constants and the seeding
 * procedure of O'Neill 2014, section 6.3 and the reference description. */
#include "common/rng.h"

#define PCG_MULT 6364136223846793005ULL     /* Knuth's MMIX LCG multiplier */

void tpl_rng_seed(struct tpl_rng *r, uint64_t seed, uint64_t stream)
{
    r->state = 0;
    r->inc = (stream << 1) | 1u;
    tpl_rng_u32(r);
    r->state += seed;
    tpl_rng_u32(r);
}

uint32_t tpl_rng_u32(struct tpl_rng *r)
{
    uint64_t old = r->state;
    uint32_t xorshifted, rot;
    r->state = old * PCG_MULT + r->inc;
    xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    rot = (uint32_t)(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31));
}

/* Rejection keeps the result unbiased: values below 2^32 mod bound are
 * redrawn (O'Neill's bounded_rand). */
uint32_t tpl_rng_below(struct tpl_rng *r, uint32_t bound)
{
    uint32_t threshold, x;
    if (bound <= 1)
        return 0;
    threshold = -bound % bound;
    do
        x = tpl_rng_u32(r);
    while (x < threshold);
    return x % bound;
}

uint64_t tpl_rng_u64_below(struct tpl_rng *r, uint64_t bound)
{
    uint64_t threshold, x;
    if (bound <= 1)
        return 0;
    threshold = -bound % bound;
    do {
        x = (uint64_t)tpl_rng_u32(r) << 32;     /* two statements: the order */
        x |= tpl_rng_u32(r);                    /* of the draws is fixed */
    } while (x < threshold);
    return x % bound;
}

double tpl_rng_unit(struct tpl_rng *r)
{
    uint64_t x = (uint64_t)tpl_rng_u32(r) << 21;
    x ^= tpl_rng_u32(r) >> 11;
    return (double)(x & ((1ULL << 53) - 1)) * 0x1.0p-53;
}
