package dev.muster.server.http.wire;

import dev.muster.core.ledger.NodeList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A filter or prioritize request ({@code ExtenderArgs} on the wire): the pod to place and the candidate
 * nodes kube-scheduler's own filters left.
 *
 * @param pod       the pod
 * @param nodeNames candidate node names in request order: from {@code NodeNames}
 *                  ({@code nodeCacheCapable: true}) or from {@code Nodes.items[].metadata.name}; never null
 * @param fullNodes the request's node objects when it carried full {@code Nodes}
 *                  ({@code nodeCacheCapable: false}), else null; the filter answer must then carry the
 *                  passing nodes as objects, which {@link WireEncoder#encodeFilterResult} does from this
 * @param nodeNamesJson the request's {@code NodeNames} array as it was sent (null when absent), so an
 *                  answer that passes every node can repeat it instead of encoding thousands of names
 */
public record ExtenderArgs(WirePod pod, List<String> nodeNames, RawNodeList fullNodes, RawJson nodeNamesJson) {
    public ExtenderArgs {
        Objects.requireNonNull(pod, "pod");
        if (fullNodes != null) {
            if (nodeNames != null && !nodeNames.equals(fullNodes.names())) {
                throw new IllegalArgumentException("nodeNames must be the names of fullNodes");
            }
            nodeNames = fullNodes.names();
        } else {
            // the decoder's NodeList is immutable and carries the names' ids for the ledger: kept as it is
            nodeNames = nodeNames == null ? List.of() : nodeNames instanceof NodeList ? nodeNames : Collections.unmodifiableList(nodeNames);
        }
    }

    public ExtenderArgs(WirePod pod, List<String> nodeNames, RawNodeList fullNodes) {
        this(pod, nodeNames, fullNodes, null);
    }

    /** True when the request carried full Node objects ({@code nodeCacheCapable: false}). */
    public boolean nodesGivenInFull() {
        return fullNodes != null;
    }
}
