package dev.muster.testsupport.extender;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Calls an extender's HTTP verbs exactly as kube-scheduler does: POST with capitalised extender JSON
 * over keep-alive HTTP/1.1 ({@code nodeCacheCapable: true}: node names, not node objects). Used by the
 * demo's scheduler simulation, the loopback tests and the HTTP benchmark. Thread-safe.
 */
public final class ExtenderClient {
    private static final JsonFactory JSON = new JsonFactory();

    private final HttpClient http;
    private final String baseUrl;
    private final Duration timeout;

    public ExtenderClient(String baseUrl, Duration timeout) {
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        this.baseUrl = baseUrl;
        this.timeout = timeout;
    }

    /** What filter answered. {@code error} is non-empty when the call failed as a whole. */
    public record FilterAnswer(List<String> nodeNames, Map<String, String> failed, Map<String, String> unresolvable, String error) {}

    /** A node's score from prioritize. */
    public record HostScore(String host, long score) {}

    /** A raw HTTP answer. */
    public record Raw(int status, byte[] body) {}

    public FilterAnswer filter(String podJson, List<String> nodeNames) {
        Raw r = post("/filter", extenderArgs(podJson, nodeNames));
        return parseFilter(r);
    }

    public List<HostScore> prioritize(String podJson, List<String> nodeNames) {
        Raw r = post("/prioritize", extenderArgs(podJson, nodeNames));
        if (r.status() != 200) {
            throw new IllegalStateException("prioritize answered " + r.status() + ": " + new String(r.body()));
        }
        List<HostScore> out = new ArrayList<>();
        try (JsonParser p = JSON.createParser(r.body())) {
            expect(p.nextToken(), JsonToken.START_ARRAY);
            while (p.nextToken() == JsonToken.START_OBJECT) {
                String host = null;
                long score = 0;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String f = p.currentName();
                    p.nextToken();
                    if (f.equalsIgnoreCase("Host")) {
                        host = p.getText();
                    } else if (f.equalsIgnoreCase("Score")) {
                        score = p.getLongValue();
                    } else {
                        p.skipChildren();
                    }
                }
                out.add(new HostScore(host, score));
            }
        } catch (IOException e) {
            throw new IllegalStateException("prioritize answer is not JSON: " + e.getMessage(), e);
        }
        return out;
    }

    /** Binds; returns "" on success or the extender's error. */
    public String bind(String name, String namespace, String uid, String node) {
        String body = "{\"PodName\":" + quote(name) + ",\"PodNamespace\":" + quote(namespace) + ",\"PodUID\":" + quote(uid)
                + ",\"Node\":" + quote(node) + "}";
        Raw r = post("/bind", body.getBytes());
        String error = field(r.body(), "Error");
        if (r.status() != 200) {
            return "bind answered HTTP " + r.status() + (error == null ? "" : ": " + error);
        }
        return error == null ? "" : error;
    }

    public Raw post(String path, byte[] body) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        try {
            HttpResponse<byte[]> resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
            return new Raw(resp.statusCode(), resp.body());
        } catch (IOException e) {
            throw new IllegalStateException("POST " + path + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    public Raw get(String path) {
        HttpRequest req = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(timeout).GET().build();
        try {
            HttpResponse<byte[]> resp = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
            return new Raw(resp.statusCode(), resp.body());
        } catch (IOException e) {
            throw new IllegalStateException("GET " + path + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** {@code {"Pod":<pod>,"Nodes":null,"NodeNames":[...]}} as kube-scheduler sends with nodeCacheCapable. */
    public static byte[] extenderArgs(String podJson, List<String> nodeNames) {
        StringBuilder sb = new StringBuilder(podJson.length() + 32 + nodeNames.size() * 24);
        sb.append("{\"Pod\":").append(podJson).append(",\"Nodes\":null,\"NodeNames\":[");
        for (int i = 0; i < nodeNames.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(quote(nodeNames.get(i)));
        }
        return sb.append("]}").toString().getBytes();
    }

    /** A pending pod as kube-scheduler embeds it (no apiVersion/kind, no managedFields). */
    public static String podJson(PodSpec pod) {
        StringBuilder sb = new StringBuilder(512);
        sb.append("{\"metadata\":{\"name\":").append(quote(pod.name())).append(",\"namespace\":").append(quote(pod.namespace()))
                .append(",\"uid\":").append(quote(pod.uid())).append(",\"resourceVersion\":").append(quote(pod.resourceVersion()));
        if (!pod.annotations().isEmpty()) {
            sb.append(",\"annotations\":{");
            boolean first = true;
            for (Map.Entry<String, String> a : pod.annotations().entrySet()) {
                sb.append(first ? "" : ",").append(quote(a.getKey())).append(':').append(quote(a.getValue()));
                first = false;
            }
            sb.append('}');
        }
        sb.append("},\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{");
        boolean first = true;
        for (Map.Entry<String, String> r : pod.requests().entrySet()) {
            sb.append(first ? "" : ",").append(quote(r.getKey())).append(':').append(quote(r.getValue()));
            first = false;
        }
        sb.append("}}}],\"schedulerName\":").append(quote(pod.schedulerName())).append(",\"priority\":").append(pod.priority())
                .append("},\"status\":{\"phase\":\"Pending\"}}");
        return sb.toString();
    }

    /** The parts of a pod the extender reads. */
    public record PodSpec(String name, String namespace, String uid, String resourceVersion, Map<String, String> requests,
                          Map<String, String> annotations, String schedulerName, int priority) {
        /** A pod at resourceVersion "1" with priority 0. */
        public PodSpec(String name, String namespace, String uid, Map<String, String> requests, Map<String, String> annotations,
                       String schedulerName) {
            this(name, namespace, uid, "1", requests, annotations, schedulerName, 0);
        }
    }

    /** Parses a raw /filter answer (for tests that post bodies themselves). */
    public static FilterAnswer parseFilterForTest(Raw r) {
        return parseFilter(r);
    }

    static FilterAnswer parseFilter(Raw r) {
        List<String> names = new ArrayList<>();
        Map<String, String> failed = new LinkedHashMap<>();
        Map<String, String> unresolvable = new LinkedHashMap<>();
        String error = "";
        try (JsonParser p = JSON.createParser(r.body())) {
            expect(p.nextToken(), JsonToken.START_OBJECT);
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                JsonToken t = p.nextToken();
                if (t == JsonToken.VALUE_NULL) {
                    continue;
                }
                switch (f.toLowerCase()) {
                    case "nodenames" -> {
                        while (p.nextToken() == JsonToken.VALUE_STRING) {
                            names.add(p.getText());
                        }
                    }
                    case "failednodes" -> readMap(p, failed);
                    case "failedandunresolvablenodes" -> readMap(p, unresolvable);
                    case "error" -> error = p.getText();
                    default -> p.skipChildren();
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("filter answer is not JSON: " + e.getMessage(), e);
        }
        if (r.status() != 200 && error.isEmpty()) {
            error = "HTTP " + r.status();
        }
        return new FilterAnswer(names, failed, unresolvable, error);
    }

    private static void readMap(JsonParser p, Map<String, String> into) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String k = p.currentName();
            p.nextToken();
            into.put(k, p.getText());
        }
    }

    private static String field(byte[] body, String name) {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String f = p.currentName();
                p.nextToken();
                if (f.equalsIgnoreCase(name)) {
                    return p.getText();
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    private static void expect(JsonToken actual, JsonToken expected) throws IOException {
        if (actual != expected) {
            throw new IOException("expected " + expected + ", got " + actual);
        }
    }

    static String quote(String s) {
        return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(s)) + '"';
    }
}
