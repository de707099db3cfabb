/**
 * The scheduling core's facade, {@link dev.muster.core.scheduler.GangScheduler}: filter, prioritize, bind (with the gang barrier), preempt and the cluster-sync inputs, behind one lock. Also the ports adapters implement ({@link dev.muster.core.gang.Binder}, {@link dev.muster.core.scheduler.ClusterSink}).
 */
package dev.muster.core.scheduler;
