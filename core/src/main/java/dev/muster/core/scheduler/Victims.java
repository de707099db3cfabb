package dev.muster.core.scheduler;

import java.util.List;

/**
 * kube-scheduler's {@code MetaVictims} for one node: the UIDs it would evict and how many PodDisruptionBudgets that
 * violates. The wire codec reads and writes it as such.
 */
public record Victims(List<String> podUids, long numPdbViolations) {
    public Victims {
        podUids = List.copyOf(podUids == null ? List.of() : podUids);
    }
}
