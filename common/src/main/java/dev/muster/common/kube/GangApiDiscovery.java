package dev.muster.common.kube;

import dev.muster.core.model.GangApi;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApisApi;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1APIGroup;
import io.kubernetes.client.openapi.models.V1APIGroupList;
import io.kubernetes.client.openapi.models.V1APIResource;
import io.kubernetes.client.openapi.models.V1APIResourceList;
import io.kubernetes.client.openapi.models.V1GroupVersionForDiscovery;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which gang APIs the API server serves, and at which version: one {@code GET /apis} (the groups and their versions),
 * then {@code GET /apis/<group>/<version>} for each candidate version ({@link GangApiGroups#versions}, newest first)
 * until one lists {@code podgroups}. A group can be served without PodGroups ({@code scheduling.k8s.io/v1} has only
 * PriorityClasses), so the resource list decides, not the group. Also tells whether {@code podgroups/status} exists
 * (status goes there when it does).
 *
 * <p>{@link #discover} makes the calls; {@link #served} answers from the last successful discovery. Thread-safe: the
 * last result is an immutable map behind a volatile field.
 */
public final class GangApiDiscovery {
    /**
     * A served PodGroup API: its version, whether it has a status subresource, and which resources of its group-version
     * it serves besides PodGroups that Muster reads — {@code workloads} (Kubernetes: the templates its PodGroups refer
     * to), {@code queues} (Volcano).
     */
    public record Served(GangApi api, String version, boolean statusSubresource, Set<String> companions) {
        public Served {
            Objects.requireNonNull(api, "api");
            Objects.requireNonNull(version, "version");
            companions = Set.copyOf(companions);
        }

        public Served(GangApi api, String version, boolean statusSubresource) {
            this(api, version, statusSubresource, Set.of());
        }

        /** Whether {@code resource} (e.g. {@code workloads}, {@code queues}) is served beside the PodGroups. */
        public boolean serves(String resource) {
            return companions.contains(resource);
        }

        public String apiVersion() {
            return GangApiGroups.group(api) + "/" + version;
        }
    }

    /** The answer of one discovery: what is served, or why it could not be told. */
    public record Result(Map<GangApi, Served> served, String failure) {
        public Result {
            served = Map.copyOf(served);
        }

        public boolean failed() {
            return failure != null;
        }
    }

    private final ApisApi apis;
    private final CustomObjectsApi custom;
    private volatile Map<GangApi, Served> last = Map.of();

    public GangApiDiscovery(ApiClient client) {
        this.apis = new ApisApi(client);
        this.custom = new CustomObjectsApi(client);
    }

    /** Asks the API server now. On failure the last known answer stays in place. */
    public Result discover() {
        try {
            V1APIGroupList groups = apis.getAPIVersions().execute();
            Map<GangApi, Served> served = new EnumMap<>(GangApi.class);
            for (GangApi api : GangApi.values()) {
                Served s = find(api, groups);
                if (s != null) {
                    served.put(api, s);
                }
            }
            last = Map.copyOf(served);
            return new Result(served, null);
        } catch (ApiException e) {
            return new Result(last, e.getCode() == 0 ? String.valueOf(e.getCause()) : "HTTP " + e.getCode());
        } catch (RuntimeException e) {
            return new Result(last, e.toString());
        }
    }

    /** The served version of {@code api} as of the last successful discovery, or null. */
    public Served served(GangApi api) {
        return last.get(api);
    }

    private Served find(GangApi api, V1APIGroupList groups) throws ApiException {
        String group = GangApiGroups.group(api);
        Set<String> versions = new HashSet<>();
        for (V1APIGroup g : groups.getGroups() == null ? java.util.List.<V1APIGroup>of() : groups.getGroups()) {
            if (group.equals(g.getName()) && g.getVersions() != null) {
                for (V1GroupVersionForDiscovery v : g.getVersions()) {
                    versions.add(v.getVersion());
                }
            }
        }
        for (String version : GangApiGroups.versions(api)) {
            if (!versions.contains(version)) {
                continue;
            }
            V1APIResourceList list = custom.getAPIResources(group, version).execute();
            Set<String> names = new HashSet<>();
            if (list != null && list.getResources() != null) {
                for (V1APIResource r : list.getResources()) {
                    names.add(r.getName());
                }
            }
            if (names.contains(GangApiGroups.PODGROUPS)) {
                Set<String> companions = new HashSet<>(names);
                companions.retainAll(Set.of(GangApiGroups.WORKLOADS, VolcanoCrds.QUEUES));
                return new Served(api, version, names.contains(GangApiGroups.PODGROUPS + "/status"), companions);
            }
        }
        return null;
    }
}
