package dev.muster.server.http.wire;

import java.util.Objects;

/**
 * A bind request ({@code ExtenderBindingArgs} on the wire). Every field is present and non-empty.
 *
 * @param podName      the pod's name
 * @param podNamespace the pod's namespace
 * @param podUID       the pod's UID (bind is idempotent per UID)
 * @param node         the node kube-scheduler chose
 */
public record BindingArgs(String podName, String podNamespace, String podUID, String node) {
    public BindingArgs {
        Objects.requireNonNull(podName, "podName");
        Objects.requireNonNull(podNamespace, "podNamespace");
        Objects.requireNonNull(podUID, "podUID");
        Objects.requireNonNull(node, "node");
    }
}
