package dev.muster.server.http.wire;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A filter answer ({@code ExtenderFilterResult} on the wire), before encoding.
 *
 * @param nodeNames                  the nodes that pass, a subset of the request's nodes
 * @param failedNodes                node → reason, for nodes that fail but might pass after preemption
 * @param failedAndUnresolvableNodes node → reason, for nodes preemption cannot help
 * @param error                      non-empty to fail the whole call (kube-scheduler then ignores the rest)
 */
public record FilterResult(List<String> nodeNames, Map<String, String> failedNodes,
                           Map<String, String> failedAndUnresolvableNodes, String error) {
    public FilterResult {
        nodeNames = List.copyOf(nodeNames == null ? List.of() : nodeNames);
        failedNodes = copy(failedNodes);
        failedAndUnresolvableNodes = copy(failedAndUnresolvableNodes);
        error = error == null ? "" : error;
    }

    /** A successful answer. */
    public static FilterResult of(List<String> passing, Map<String, String> failedNodes,
                                  Map<String, String> failedAndUnresolvableNodes) {
        return new FilterResult(passing, failedNodes, failedAndUnresolvableNodes, "");
    }

    /** An answer that fails the call with {@code error}. */
    public static FilterResult failure(String error) {
        if (error == null || error.isEmpty()) {
            throw new IllegalArgumentException("a failure needs a message");
        }
        return new FilterResult(List.of(), Map.of(), Map.of(), error);
    }

    public boolean isFailure() {
        return !error.isEmpty();
    }

    private static Map<String, String> copy(Map<String, String> m) {
        if (m == null || m.isEmpty()) {
            return Map.of();
        }
        LinkedHashMap<String, String> c = new LinkedHashMap<>(m);
        c.forEach((k, v) -> {
            if (k == null || v == null) {
                throw new NullPointerException("failed node names and reasons must not be null");
            }
        });
        return Collections.unmodifiableMap(c);
    }
}
