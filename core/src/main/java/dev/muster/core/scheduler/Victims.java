package dev.muster.core.scheduler;

import java.util.List;

/** kube-scheduler's MetaVictims for one node: the UIDs it would evict and how many PDBs that violates. */
public record Victims(List<String> podUids, long numPdbViolations) {
    public Victims {
        podUids = List.copyOf(podUids);
    }
}
