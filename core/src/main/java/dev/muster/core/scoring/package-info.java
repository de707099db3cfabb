/**
 * Node ranking policies (binpack, spread) and the mapping to kube-scheduler's 0..10 extender scores.
 */
package dev.muster.core.scoring;
