package dev.muster.server.http.wire;

import java.util.List;

/**
 * The pods kube-scheduler would evict on one node to make room ({@code MetaVictims} on the wire).
 *
 * @param podUids          the victims' UIDs, in wire order
 * @param numPDBViolations how many PodDisruptionBudgets evicting them would violate
 */
public record MetaVictims(List<String> podUids, long numPDBViolations) {
    public MetaVictims {
        podUids = List.copyOf(podUids == null ? List.of() : podUids);
    }
}
