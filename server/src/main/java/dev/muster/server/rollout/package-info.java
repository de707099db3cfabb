/**
 * Restarting kube-scheduler when the CA of the extender's certificate changes: {@link dev.muster.server.rollout.SchedulerRollout}
 * patches one pod-template annotation of the chart's kube-scheduler Deployment, leader-only.
 */
package dev.muster.server.rollout;
