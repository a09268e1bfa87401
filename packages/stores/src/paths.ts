/** Path safety lives in the kernel; the stores use the same functions. */
export { slugify, idSegment, isInside, safeJoin, writeFileAtomic } from '@memory-service/kernel';
