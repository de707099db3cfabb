/**
 * The allocation stream's domain: events, the bounded journal with running totals, snapshots, and the fold both ends use ({@link dev.muster.core.stream.AllocationTotals}).
 */
package dev.muster.core.stream;
