package dev.muster.common.kube;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.muster.core.model.GangApi;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.ApisApi;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.io.IOException;
import java.util.ArrayList;
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
            if (!response.isSuccessful()) {
                throw new ApiException(response.code(), response.message());
            }
            JsonReader in = new JsonReader(response.body().charStream());
            return reader.read(in);
        } catch (IllegalStateException | NumberFormatException e) { // Gson's reader on a malformed body
            throw new IOException("discovery answer is not the expected JSON: " + e.getMessage(), e);
        }
    }

    /**
     * An {@code APIGroupList}: each group's name and the versions it serves. An answer without {@code groups} is not
     * one (client-java's model refused it too): a server that answers {@code /apis} with something else cannot tell.
     */
    static Map<String, Set<String>> readGroups(JsonReader in) throws IOException {
        Map<String, Set<String>> groups = new HashMap<>();
        boolean listed = false;
        in.beginObject();
        while (in.hasNext()) {
            if (!in.nextName().equals("groups") || in.peek() == JsonToken.NULL) {
                in.skipValue();
                continue;
            }
            listed = true;
            in.beginArray();
            while (in.hasNext()) {
                String name = null;
                Set<String> versions = new HashSet<>();
                in.beginObject();
                while (in.hasNext()) {
                    switch (in.nextName()) {
                        case "name" -> name = SlimJson.string(in, "groups[].name");
                        case "versions" -> versions.addAll(strings(in, "version", "groups[].versions[].version"));
                        default -> in.skipValue();
                    }
                }
                in.endObject();
                if (name != null) {
                    groups.computeIfAbsent(name, k -> new HashSet<>()).addAll(versions);
                }
            }
            in.endArray();
        }
        in.endObject();
        if (!listed) {
            throw new IOException("discovery answer is not an APIGroupList: it has no groups");
        }
        return groups;
    }

    /**
     * An {@code APIResourceList}: the names of its resources ({@code podgroups}, {@code podgroups/status}, ...); an
     * answer without {@code resources} is not one.
     */
    static Set<String> readResourceNames(JsonReader in) throws IOException {
        Set<String> names = new HashSet<>();
        boolean listed = false;
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("resources") && in.peek() != JsonToken.NULL) {
                listed = true;
                names.addAll(strings(in, "name", "resources[].name"));
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        if (!listed) {
            throw new IOException("discovery answer is not an APIResourceList: it has no resources");
        }
        return names;
    }

    /** The string field {@code field} of each object of an array (null or absent ones left out). */
    private static List<String> strings(JsonReader in, String field, String where) throws IOException {
        List<String> out = new ArrayList<>();
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return out;
        }
        in.beginArray();
        while (in.hasNext()) {
            in.beginObject();
            while (in.hasNext()) {
                String value = in.nextName().equals(field) ? SlimJson.string(in, where) : skip(in);
                if (value != null) {
                    out.add(value);
                }
            }
            in.endObject();
        }
        in.endArray();
        return out;
    }

    private static String skip(JsonReader in) throws IOException {
        in.skipValue();
        return null;
    }
}
