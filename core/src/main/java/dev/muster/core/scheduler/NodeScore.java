package dev.muster.core.scheduler;

/** kube-scheduler's HostPriority: a node and a score in 0..10. */
public record NodeScore(String node, int score) {}
