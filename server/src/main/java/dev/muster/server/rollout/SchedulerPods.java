package dev.muster.server.rollout;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.muster.common.kube.KubeClients;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.Pair;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import okhttp3.Call;
import okhttp3.Response;

/**
 * The pods of kube-scheduler's Deployment, read through the API: which of them started before a CA change, that is,
 * carry another value of {@link SchedulerRollout#ANNOTATION} than the CA's checksum (a pod copies its template's
 * annotations when it is made, and kube-scheduler reads its CA file once, at start). A pod counts until it is gone or
 * its phase is Succeeded or Failed: a terminating pod's kube-scheduler may still be running.
 *
 * <p>RBAC: {@code get} on that one Deployment (its selector, read once) and {@code list} on pods in its namespace.
 * Not thread-safe: owned by the rollout's thread.
 */
final class SchedulerPods {
    private final ApiClient client;
    private final String namespace;
    private final String name;
    private String selector; // the Deployment's spec.selector.matchLabels as a label selector, once read

    SchedulerPods(ApiClient client, String namespace, String name) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
    }

    /**
     * The names of the Deployment's running pods whose checksum is not {@code checksum} (none when the Deployment does
     * not exist).
     *
     * @throws IOException naming what could not be read (the API's answer included)
     */
    List<String> olderThan(String checksum) throws IOException {
        if (selector == null) {
            JsonObject d = get("/apis/apps/v1/namespaces/" + client.escapeString(namespace) + "/deployments/" + client.escapeString(name), List.of());
            if (d == null) {
                return List.of();
            }
            selector = selector(d);
        }
        JsonObject list = get("/api/v1/namespaces/" + client.escapeString(namespace) + "/pods", List.of(new Pair("labelSelector", selector)));
        List<String> older = new ArrayList<>();
        if (list == null || !list.has("items")) {
            return older;
        }
        for (JsonElement e : list.getAsJsonArray("items")) {
            JsonObject pod = e.getAsJsonObject();
            JsonObject meta = pod.getAsJsonObject("metadata");
            String phase = pod.has("status") && pod.getAsJsonObject("status").has("phase") ? pod.getAsJsonObject("status").get("phase").getAsString() : "";
            if (phase.equals("Succeeded") || phase.equals("Failed")) {
                continue;
            }
            JsonObject annotations = meta.has("annotations") ? meta.getAsJsonObject("annotations") : new JsonObject();
            JsonElement sum = annotations.get(SchedulerRollout.ANNOTATION);
            if (sum == null || !sum.getAsString().equals(checksum)) {
                older.add(meta.get("name").getAsString());
            }
        }
        return older;
    }

    /** {@code spec.selector.matchLabels} as {@code k=v,...}; a selector with expressions cannot be read here. */
    private String selector(JsonObject deployment) throws IOException {
        JsonObject sel = deployment.getAsJsonObject("spec").getAsJsonObject("selector");
        if (sel == null || !sel.has("matchLabels") || sel.has("matchExpressions")) {
            throw new IOException("Deployment " + namespace + "/" + name + " selects its pods by something other than matchLabels alone");
        }
        Map<String, String> labels = new HashMap<>();
        sel.getAsJsonObject("matchLabels").entrySet().forEach(en -> labels.put(en.getKey(), en.getValue().getAsString()));
        StringJoiner j = new StringJoiner(",");
        labels.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(en -> j.add(en.getKey() + "=" + en.getValue()));
        return j.toString();
    }

    /** The object at {@code path}, or null on 404. */
    private JsonObject get(String path, List<Pair> query) throws IOException {
        try {
            Call call = KubeClients.call(client, "GET", path, new ArrayList<>(query), null, new HashMap<>(Map.of("Accept", "application/json")));
            try (Response r = call.execute()) {
                String body = r.body() == null ? "" : r.body().string();
                if (r.code() == 404) {
                    return null;
                }
                if (!r.isSuccessful()) {
                    throw new IOException("GET " + path + ": HTTP " + r.code() + " " + body
                            + (r.code() == 403 ? " (the ServiceAccount needs get on the Deployment and list on pods in " + namespace + ")" : ""));
                }
                return JsonParser.parseString(body).getAsJsonObject();
            }
        } catch (ApiException e) {
            throw new IOException("GET " + path + ": " + e.getMessage(), e);
        }
    }
}
