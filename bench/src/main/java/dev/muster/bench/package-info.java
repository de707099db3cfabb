/**
 * Benchmarks (JMH) and load drivers. Not part of the test run: each prints its measurement; results and
 * the commands that produced them are in docs/benchmarks.md.
 */
package dev.muster.bench;
