/**
 * Resource amounts as exact integers (cpu millicores, bytes, counts, extended resources), Kubernetes quantity parsing, and the effective pod request exactly as kube-scheduler computes it. Immutable values; thread-safe.
 */
package dev.muster.core.resources;
