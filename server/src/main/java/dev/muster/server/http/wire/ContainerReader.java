package dev.muster.server.http.wire;

import com.fasterxml.jackson.core.JsonToken;
import dev.muster.core.resources.PodRequests;
import dev.muster.core.resources.ResourceList;
import dev.muster.core.resources.Resources;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the requests of a pod's containers and init containers ({@code resources.requests} and, for init containers,
 * {@code restartPolicy: Always}, a sidecar) and of any ResourceRequirements object. Part of {@link PodReader}; stateless.
 */
final class ContainerReader {
    private static final String RESTART_ALWAYS = "Always";

    private ContainerReader() {}

    /** Told, per container, whether its requests name the gang marker (kube-scheduler's managedResources test). */
    @FunctionalInterface
    interface Marked {
        void requests(boolean namesGangMarker);
    }

    static List<PodRequests.Container> readContainers(JsonInput in, boolean init, Marked marked) throws IOException {
        if (!in.arrayOrNull("an array of containers")) {
            return List.of();
        }
        List<PodRequests.Container> containers = new ArrayList<>(2);
        while (in.nextElement()) {
            containers.add(readContainer(in, init, marked));
        }
        return containers;
    }

    /** One container; tells {@code marked} whether its requests name the gang marker (kube-scheduler's managedResources test). */
    private static PodRequests.Container readContainer(JsonInput in, boolean init, Marked marked) throws IOException {
        if (in.current() != JsonToken.START_OBJECT) {
            throw in.typeError("a container object", in.current());
        }
        Resources requests = Resources.ZERO;
        String restartPolicy = null;
        int seen = 0;
        while (in.nextField()) {
            switch (in.fieldName()) {
                case "resources" -> {
                    seen = in.markSeen(seen, 1);
                    in.next();
                    ResourceList list = readRequestListOf(in);
                    if (list != null) {
                        marked.requests(list.marked());
                        requests = list.build();
                    }
                }
                case "restartPolicy" -> {
                    seen = in.markSeen(seen, 2);
                    in.next();
                    restartPolicy = in.stringOrNull();
                }
                default -> in.skipFieldValue();
            }
        }
        // Only an init container can be a sidecar; regular containers' restartPolicy means nothing here.
        return new PodRequests.Container(requests, init && RESTART_ALWAYS.equals(restartPolicy));
    }

    /** Reads {@code requests} of a ResourceRequirements object ({@code limits}, {@code claims} skipped). */
    static Resources readRequestsOf(JsonInput in) throws IOException {
        ResourceList list = readRequestListOf(in);
        return list == null ? Resources.ZERO : list.build();
    }

    /**
     * {@code readRequestsOf} keeping the list, null when there are no requests. Limits are not read: the API server
     * copies an extended resource's limit into its request, so a marked pod names the marker in its requests.
     */
    private static ResourceList readRequestListOf(JsonInput in) throws IOException {
        if (!in.objectOrNull("an object")) {
            return null;
        }
        ResourceList requests = null;
        int seen = 0;
        while (in.nextField()) {
            if ("requests".equals(in.fieldName())) {
                seen = in.markSeen(seen, 1);
                in.next();
                requests = ResourceListReader.readList(in, "requests");
            } else {
                in.skipFieldValue();
            }
        }
        return requests;
    }
}
