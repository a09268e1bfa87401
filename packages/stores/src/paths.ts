/** Path safety lives in the kernel; the stores use the same functions. */
export { slugify, idSegment, isInside, removeStaleTemps, safeJoin, writeFileAtomic } from '@memory-service/kernel';
