package dev.muster.common.kube;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.muster.core.model.GangApi;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApisApi;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.io.IOException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import okhttp3.Call;
import okhttp3.Response;

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
            Map<String, Set<String>> groups = get(apis.getAPIVersions().buildCall(null), GangApiDiscovery::readGroups);
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
        } catch (IOException | RuntimeException e) {
            return new Result(last, e.toString());
        }
    }

    /** The served version of {@code api} as of the last successful discovery, or null. */
    public Served served(GangApi api) {
        return last.get(api);
    }

    private Served find(GangApi api, Map<String, Set<String>> groups) throws ApiException, IOException {
        String group = GangApiGroups.group(api);
        Set<String> versions = groups.getOrDefault(group, Set.of());
        for (String version : GangApiGroups.versions(api)) {
            if (!versions.contains(version)) {
                continue;
            }
            Set<String> names = get(custom.getAPIResources(group, version).buildCall(null), GangApiDiscovery::readResourceNames);
            if (names.contains(GangApiGroups.PODGROUPS)) {
                Set<String> companions = new HashSet<>(names);
                companions.retainAll(Set.of(GangApiGroups.WORKLOADS, VolcanoCrds.QUEUES));
                return new Served(api, version, names.contains(GangApiGroups.PODGROUPS + "/status"), companions);
            }
        }
        return null;
    }

    /**
     * Runs a discovery call and reads its body with {@code reader}. The two answers are read with a streaming reader
     * for the few fields discovery needs, not through client-java's model classes: the first time its Gson looks up a
     * type it asks every one of its ~770 type adapter factories, which loads ~760 model classes (0.4 s of a two-core
     * machine without the images' class data archive). Discovery is the first step of the first full sync; it no
     * longer waits for that. The gang informers' first lists, which client-java decodes with Gson, still pay it once,
     * beside the node and pod lists (docs/benchmarks.md, "The start").
     */
    private static <T> T get(Call call, SlimJson.ObjectReader<T> reader) throws ApiException, IOException {
        try (Response response = call.execute()) {
            return reader.read(new JsonReader(KubeClients.successful(response, "discovery").charStream()));
        } catch (IllegalStateException e) { // Gson's reader met another JSON type than the one asked for
            throw new IOException("discovery answer is not the expected JSON: " + e.getMessage(), e);
        }
    }

    /** One group of an {@code APIGroupList}: its name and the versions it serves. */
    private record Group(String name, List<String> versions) {}

    /**
     * An {@code APIGroupList}: each group's name and the versions it serves. An answer without {@code groups} is not
     * one (client-java's model refused it too): a server that answers {@code /apis} with something else cannot tell.
     */
    static Map<String, Set<String>> readGroups(JsonReader in) throws IOException {
        Map<String, Set<String>> groups = new HashMap<>();
        for (Group g : listed(in, "groups", "APIGroupList", GangApiDiscovery::group)) {
            if (g.name() != null) {
                Set<String> versions = groups.computeIfAbsent(g.name(), k -> new HashSet<>());
                g.versions().stream().filter(Objects::nonNull).forEach(versions::add);
            }
        }
        return groups;
    }

    /**
     * An {@code APIResourceList}: the names of its resources ({@code podgroups}, {@code podgroups/status}, ...); an
     * answer without {@code resources} is not one.
     */
    static Set<String> readResourceNames(JsonReader in) throws IOException {
        Set<String> names = new HashSet<>();
        for (String name : listed(in, "resources", "APIResourceList", r -> field(r, "name", "resources[].name"))) {
            if (name != null) {
                names.add(name);
            }
        }
        return names;
    }

    private static Group group(JsonReader in) throws IOException {
        String name = null;
        List<String> versions = List.of();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "name" -> name = SlimJson.string(in, "groups[].name");
                case "versions" -> versions = SlimJson.array(in, v -> field(v, "version", "groups[].versions[].version"));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return new Group(name, versions);
    }

    /** The array {@code name} of a discovery answer (an object that must have it, as {@code kind} does). */
    private static <T> List<T> listed(JsonReader in, String name, String kind, SlimJson.ObjectReader<T> element) throws IOException {
        List<T> out = null;
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals(name) && in.peek() != JsonToken.NULL) {
                out = SlimJson.array(in, element);
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        if (out == null) {
            throw new IOException("discovery answer is not an " + kind + ": it has no " + name);
        }
        return out;
    }

    /** The string field {@code name} of an object; null when it has none. */
    private static String field(JsonReader in, String name, String where) throws IOException {
        String value = null;
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals(name)) {
                value = SlimJson.string(in, where);
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return value;
    }
}
