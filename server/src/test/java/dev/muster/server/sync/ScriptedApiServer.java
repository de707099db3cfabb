package dev.muster.server.sync;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.muster.common.kube.MockKubeApi;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.JSON;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A tiny API server for informer tests, over real HTTP: lists return the current objects, and each watch request
 * returns the events queued since the previous one as a newline-delimited stream (then ends, so the informer watches
 * again). An idle watch answers after a short delay with a BOOKMARK, as a real API server does: an empty answer
 * would end at once (the mock server sends empty bodies without delay), and a watch that ends at once without an
 * event is what {@link dev.muster.common.kube.PacedWatches} backs off from. {@link #expireWatch} queues a 410 Gone
 * error event, which makes the informer list again — objects removed meanwhile then arrive as
 * {@code DeletedFinalStateUnknown}.
 *
 * <p>Thread-safe: all state guarded by {@code this}.
 */
final class ScriptedApiServer implements AutoCloseable {
    static final String NODES = "/api/v1/nodes";
    static final String PODS = "/api/v1/pods";
    static final String PODGROUPS = "/apis/scheduling.volcano.sh/v1beta1/podgroups";
    static final String QUEUES = "/apis/scheduling.volcano.sh/v1beta1/queues";

    private static final class Resource {
        final Map<String, JsonObject> objects = new LinkedHashMap<>();
        final Deque<String> events = new ArrayDeque<>();
    }

    private final MockWebServer server = new MockWebServer();
    private final Map<String, Resource> resources = new HashMap<>();
    private long resourceVersion = 100;

    ScriptedApiServer() {
        for (String path : new String[] {NODES, PODS, PODGROUPS, QUEUES}) {
            resources.put(path, new Resource());
        }
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                return answer(request.getPath());
            }
        });
        server.start();
    }

    String url() {
        String u = server.url("/").toString();
        return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
    }

    /** Adds or modifies {@code obj}; an ADDED or MODIFIED event is queued for the watch. */
    synchronized void put(String resource, KubernetesObject obj) {
        JsonObject json = stamp(obj);
        String key = key(json);
        boolean existed = resources.get(resource).objects.put(key, json) != null;
        queue(resource, existed ? "MODIFIED" : "ADDED", json);
    }

    /** Deletes {@code obj}; a DELETED event is queued. */
    synchronized void delete(String resource, KubernetesObject obj) {
        JsonObject json = stamp(obj);
        resources.get(resource).objects.remove(key(json));
        queue(resource, "DELETED", json);
    }

    /** Removes an object without telling the watch (the informer misses the delete). */
    synchronized void deleteSilently(String resource, KubernetesObject obj) {
        resources.get(resource).objects.remove(key(stamp(obj)));
    }

    /** Queues a 410 Gone error: the informer lists again. */
    synchronized void expireWatch(String resource) {
        JsonObject status = JsonParser.parseString(
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"message\":\"too old resource version\",\"reason\":\"Expired\",\"code\":410}")
                .getAsJsonObject();
        JsonObject event = new JsonObject();
        event.addProperty("type", "ERROR");
        event.add("object", status);
        resources.get(resource).events.add(event.toString());
    }

    private synchronized MockResponse answer(String pathAndQuery) {
        int q = pathAndQuery.indexOf('?');
        String path = q < 0 ? pathAndQuery : pathAndQuery.substring(0, q);
        String query = q < 0 ? "" : pathAndQuery.substring(q + 1);
        Resource r = resources.get(path);
        if (r == null) {
            return new MockResponse().setResponseCode(404).setBody("{\"kind\":\"Status\",\"code\":404}");
        }
        if (query.contains("watch=true")) {
            StringBuilder body = new StringBuilder();
            while (!r.events.isEmpty()) {
                body.append(r.events.poll()).append('\n');
            }
            MockResponse response = new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json");
            return body.isEmpty()
                    ? response.setBody(MockKubeApi.bookmark(Long.toString(resourceVersion)) + "\n").setBodyDelay(MockKubeApi.IDLE_WATCH)
                    : response.setBody(body.toString());
        }
        r.events.clear(); // a fresh list supersedes what the old watch had not delivered
        JsonObject list = new JsonObject();
        list.addProperty("apiVersion", "v1");
        list.addProperty("kind", "List");
        JsonObject meta = new JsonObject();
        meta.addProperty("resourceVersion", Long.toString(resourceVersion));
        list.add("metadata", meta);
        JsonArray items = new JsonArray();
        r.objects.values().forEach(items::add);
        list.add("items", items);
        return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json").setBody(list.toString());
    }

    private JsonObject stamp(KubernetesObject obj) {
        JsonObject json = JsonParser.parseString(JSON.serialize(obj)).getAsJsonObject();
        json.getAsJsonObject("metadata").addProperty("resourceVersion", Long.toString(++resourceVersion));
        return json;
    }

    private void queue(String resource, String type, JsonObject json) {
        JsonObject event = new JsonObject();
        event.addProperty("type", type);
        event.add("object", json);
        resources.get(resource).events.add(event.toString());
    }

    private static String key(JsonObject json) {
        JsonObject meta = json.getAsJsonObject("metadata");
        String name = meta.get("name").getAsString();
        return meta.has("namespace") ? meta.get("namespace").getAsString() + "/" + name : name;
    }

    @Override
    public void close() {
        server.shutdown();
    }
}
