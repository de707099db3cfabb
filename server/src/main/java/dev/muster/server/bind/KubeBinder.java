package dev.muster.server.bind;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.CodedOutputStream;
import dev.muster.core.model.PodId;
import dev.muster.common.kube.KubeClients;
import dev.muster.common.kube.SlimProto;
import dev.muster.common.kube.SlimProtoEnvelope;
import dev.muster.core.gang.Binder;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Map;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import okhttp3.Call;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Binder} over the Kubernetes API: one {@code POST /api/v1/namespaces/{ns}/pods/{name}/binding} per pod, with
 * the pod's UID as a precondition (a pod recreated under the same name is never bound by mistake), run on a virtual
 * thread so the caller never blocks.
 *
 * <p>Outcomes:
 * <ul>
 *   <li>2xx → bound;</li>
 *   <li>5xx for a pod that is being deleted (it has a deletionTimestamp) → failure: it can never be bound;</li>
 *   <li>429, other 5xx, I/O errors → retried with exponential backoff (jittered, honouring {@code Retry-After}) until
 *       {@link BindOptions#budget()} is spent, then failed with the last error;</li>
 *   <li>409 (already assigned, or UID precondition) → the pod is read and its state is the truth: on {@code node}
 *       already → success; on another node → failure naming both; recreated (other UID) → failure; still unbound →
 *       retried;</li>
 *   <li>404 → failure: the pod is gone; other 4xx → failure with the API's message.</li>
 * </ul>
 * Responses are read raw (status code and message), not through client-java's generated models, because the API
 * answers a Binding POST with a {@code Status} body that the strict {@code V1Binding} model rejects; a 2xx answer's body
 * is not parsed at all. The Binding is written by hand — in Kubernetes' protobuf encoding by default, as
 * kube-scheduler's own client sends it ({@link Encoding}), or as JSON — and sent through {@link KubeClients#call}
 * (so authentication, TLS and the base path are client-java's, as for every other call): the generated
 * {@code createNamespacedPodBinding} serialised a {@code V1Binding} by reflection and matched content types with a
 * regular expression compiled per call — a third of the binder's CPU in the real loop (docs/benchmarks.md).
 *
 * <p>Thread-safe. Each bind runs on its own virtual thread; at most {@link BindOptions#maxConcurrent()} requests are in
 * flight (a semaphore; waiting happens on virtual threads). {@link #close()} sets the volatile {@code closed} flag and
 * interrupts binds in flight; each ends at its next step with "binder closed", and later binds fail at once.
 */
public final class KubeBinder implements Binder, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KubeBinder.class);

    /** How the Binding travels to the API server. */
    public enum Encoding {
        /** {@code application/vnd.kubernetes.protobuf}, as kube-scheduler's own client sends it. */
        PROTOBUF,
        /** {@code application/json}. */
        JSON
    }

    private final CoreV1Api api;
    private final BindOptions options;
    private final Encoding encoding;
    private final Semaphore inFlight;
    private final BooleanSupplier leading;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("kube-bind-", 0).factory());
    private volatile boolean closed;

    public KubeBinder(ApiClient client, BindOptions options, Encoding encoding) {
        this(client, options, encoding, () -> true);
    }

    /**
     * @param leading asked right before every Binding POST (each retry too): false — this process no longer holds the
     *                Lease, or has not renewed it within its renew deadline — fails the bind without a POST, so a
     *                deposed or frozen-and-woken leader never binds what the new leader may be placing
     */
    public KubeBinder(ApiClient client, BindOptions options, Encoding encoding, BooleanSupplier leading) {
        this.api = new CoreV1Api(Objects.requireNonNull(client, "client"));
        this.options = Objects.requireNonNull(options, "options");
        this.encoding = Objects.requireNonNull(encoding, "encoding");
        this.leading = Objects.requireNonNull(leading, "leading");
        this.inFlight = new Semaphore(options.maxConcurrent());
    }

    public KubeBinder(ApiClient client, BindOptions options) {
        this(client, options, Encoding.PROTOBUF);
    }

    public KubeBinder(ApiClient client) {
        this(client, BindOptions.DEFAULTS);
    }

    @Override
    public CompletionStage<Void> bind(PodId pod, String node) {
        Objects.requireNonNull(pod, "pod");
        Objects.requireNonNull(node, "node");
        CompletableFuture<Void> result = new CompletableFuture<>();
        try {
            executor.execute(() -> run(pod, node, result));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new BindException("bind " + pod + " to " + node + ": binder closed"));
        }
        return result;
    }

    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
    }

    private void run(PodId pod, String node, CompletableFuture<Void> result) {
        try {
            bindWithRetries(pod, node);
            result.complete(null);
        } catch (BindException e) {
            log.warn("{}", e.getMessage());
            result.completeExceptionally(e);
        } catch (InterruptedException e) {
            result.completeExceptionally(new BindException("bind " + pod + " to " + node + ": binder closed"));
        } catch (RuntimeException e) {
            log.error("bind {} to {} failed unexpectedly", pod, node, e);
            result.completeExceptionally(new BindException("bind " + pod + " to " + node + ": " + e, e));
        }
    }

    /** Outcome of one attempt. */
    private sealed interface Attempt {
        record Bound() implements Attempt {}

        record Failed(String reason) implements Attempt {}

        record Retry(String reason, Duration retryAfter) implements Attempt {}
    }

    private void bindWithRetries(PodId pod, String node) throws InterruptedException {
        long deadline = System.nanoTime() + options.budget().toNanos();
        Duration backoff = options.initialBackoff();
        int attempts = 0;
        while (true) {
            if (closed) {
                throw new InterruptedException("binder closed");
            }
            attempts++;
            Attempt outcome;
            inFlight.acquire();
            try {
                if (!leading.getAsBoolean()) { // fenced: checked after any wait, right before the POST
                    throw new BindException("bind " + pod + " to " + node + ": this muster extender does not hold its Lease (lost, or not"
                            + " renewed within the renew deadline): no Binding is posted; kube-scheduler retries the pod with the leader");
                }
                outcome = attempt(pod, node);
            } finally {
                inFlight.release();
            }
            switch (outcome) {
                case Attempt.Bound b -> {
                    if (attempts > 1) {
                        log.info("bound {} to {} after {} attempts", pod, node, attempts);
                    }
                    return;
                }
                case Attempt.Failed f -> throw new BindException("bind " + pod + " to " + node + ": " + f.reason());
                case Attempt.Retry r -> {
                    Duration delay = jitter(backoff);
                    if (r.retryAfter() != null && r.retryAfter().compareTo(delay) > 0) {
                        delay = r.retryAfter().compareTo(options.maxBackoff()) > 0 ? options.maxBackoff() : r.retryAfter();
                    }
                    if (System.nanoTime() + delay.toNanos() - deadline > 0) {
                        throw new BindException("bind " + pod + " to " + node + ": gave up after " + attempts + " attempts in "
                                + options.budget().toSeconds() + "s: " + r.reason());
                    }
                    log.debug("bind {} to {}: {}; retrying in {}ms", pod, node, r.reason(), delay.toMillis());
                    if (closed) {
                        throw new InterruptedException("binder closed");
                    }
                    Thread.sleep(delay);
                    backoff = backoff.multipliedBy(2).compareTo(options.maxBackoff()) > 0 ? options.maxBackoff() : backoff.multipliedBy(2);
                }
            }
        }
    }

    /** {@code POST /api/v1/namespaces/{ns}/pods/{name}/binding} with the pod's UID as precondition. */
    private Call bindingCall(PodId pod, String node) throws ApiException {
        ApiClient client = api.getApiClient();
        String path = "/api/v1/namespaces/" + client.escapeString(pod.namespace()) + "/pods/" + client.escapeString(pod.name()) + "/binding";
        boolean proto = encoding == Encoding.PROTOBUF;
        return KubeClients.call(client, "POST", path, new ArrayList<>(), proto ? bindingProto(pod, node) : bindingJson(pod, node),
                Map.of("Accept", "application/json", // errors are read for their message
                        "Content-Type", proto ? SlimProto.MEDIA_TYPE : "application/json"));
    }

    /**
     * The same Binding in the Kubernetes protobuf encoding: {@code Binding{metadata{name, namespace, uid}, target{kind
     * Node, name, apiVersion v1}}} (field numbers from k8s.io/api core/v1's generated.proto) in the envelope
     * ({@link SlimProtoEnvelope#envelope}).
     */
    static byte[] bindingProto(PodId pod, String node) {
        byte[] meta = message(out -> {
            out.writeString(1, pod.name());
            out.writeString(3, pod.namespace());
            out.writeString(5, pod.uid());
        });
        byte[] target = message(out -> {
            out.writeString(1, "Node");
            out.writeString(3, node);
            out.writeString(5, "v1");
        });
        return SlimProtoEnvelope.envelope("v1", "Binding", message(out -> {
            out.writeByteArray(1, meta);
            out.writeByteArray(2, target);
        }));
    }

    @FunctionalInterface
    private interface Fields {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] message(Fields fields) {
        try {
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream(128);
            CodedOutputStream out = CodedOutputStream.newInstance(bytes, 128);
            fields.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("writing to memory cannot fail", e);
        }
    }

    /** The {@code v1 Binding} of {@code pod} (name, namespace, uid) to {@code node}, as JSON. */
    static byte[] bindingJson(PodId pod, String node) {
        StringBuilder b = new StringBuilder(160 + pod.name().length() + node.length());
        b.append("{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":");
        quote(b, pod.name()).append(",\"namespace\":");
        quote(b, pod.namespace()).append(",\"uid\":");
        quote(b, pod.uid()).append("},\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":");
        quote(b, node).append("}}");
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static StringBuilder quote(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"');
    }

    private Attempt attempt(PodId pod, String node) {
        HttpResult post;
        try {
            post = execute(bindingCall(pod, node), false);
        } catch (IOException e) {
            return new Attempt.Retry("API server unreachable: " + e, null);
        } catch (ApiException e) { // buildCall only throws for a missing required parameter
            return new Attempt.Failed("invalid binding request: " + e.getMessage());
        }
        int code = post.code();
        if (code >= 200 && code < 300) {
            return new Attempt.Bound();
        }
        if (code == 409) {
            return checkConflict(pod, node, post.message());
        }
        if (code == 404) {
            return new Attempt.Failed("pod " + pod + " no longer exists");
        }
        if (code >= 500 && terminating(pod)) {
            // the API server answers a Binding of a pod being deleted with a 500 ("is being deleted, cannot be
            // assigned to a host"): no retry will ever succeed
            return new Attempt.Failed("pod " + pod + " is being deleted: " + post.message());
        }
        if (code == 429 || code >= 500) {
            return new Attempt.Retry("HTTP " + code + ": " + post.message(), post.retryAfter());
        }
        return new Attempt.Failed("the API server refused the binding: HTTP " + code + ": " + post.message());
    }

    /** Whether the pod (this uid) carries a deletionTimestamp; false when that cannot be read. */
    private boolean terminating(PodId pod) {
        try {
            HttpResult get = execute(api.readNamespacedPod(pod.name(), pod.namespace()).buildCall(null), true);
            return get.code() == 200 && get.json() != null && pod.uid().equals(string(get.json(), "metadata", "uid"))
                    && string(get.json(), "metadata", "deletionTimestamp") != null;
        } catch (IOException | ApiException e) {
            return false;
        }
    }

    /** After a 409, the pod's current state decides. */
    private Attempt checkConflict(PodId pod, String node, String conflict) {
        HttpResult get;
        try {
            get = execute(api.readNamespacedPod(pod.name(), pod.namespace()).buildCall(null), true);
        } catch (IOException e) {
            return new Attempt.Retry("conflict (" + conflict + "), and reading the pod failed: " + e, null);
        } catch (ApiException e) {
            return new Attempt.Failed("invalid pod read request: " + e.getMessage());
        }
        if (get.code() == 404) {
            return new Attempt.Failed("pod " + pod + " no longer exists");
        }
        if (get.code() != 200 || get.json() == null) {
            return new Attempt.Retry("conflict (" + conflict + "), and reading the pod answered HTTP " + get.code(), get.retryAfter());
        }
        String uid = string(get.json(), "metadata", "uid");
        String boundTo = string(get.json(), "spec", "nodeName");
        if (uid != null && !uid.equals(pod.uid())) {
            return new Attempt.Failed("pod " + pod + " was deleted and recreated (uid " + uid + ", expected " + pod.uid() + ")");
        }
        if (node.equals(boundTo)) {
            log.info("bind {} to {}: already bound there (409 taken as success)", pod, node);
            return new Attempt.Bound();
        }
        if (boundTo != null && !boundTo.isEmpty()) {
            return new Attempt.Failed("pod " + pod + " is already bound to node " + boundTo + ", not " + node);
        }
        if (string(get.json(), "metadata", "deletionTimestamp") != null) {
            return new Attempt.Failed("pod " + pod + " is being deleted: " + conflict);
        }
        return new Attempt.Retry("conflict while the pod is still unbound: " + conflict, null);
    }

    private record HttpResult(int code, String message, JsonObject json, Duration retryAfter) {}

    /** Runs {@code call}; {@code parseSuccess} false leaves a 2xx body unparsed (a Binding's answer says nothing more). */
    private static HttpResult execute(Call call, boolean parseSuccess) throws IOException {
        try (Response response = call.execute()) {
            String body = response.body().string();
            if (response.isSuccessful() && !parseSuccess) {
                return new HttpResult(response.code(), "", null, null);
            }
            JsonObject json = parse(body);
            String message = json != null && json.get("message") instanceof JsonElement m && m.isJsonPrimitive()
                    ? m.getAsString() : abbreviate(body);
            return new HttpResult(response.code(), message, json, retryAfter(response.header("Retry-After")));
        }
    }

    private static JsonObject parse(String body) {
        try {
            JsonElement e = JsonParser.parseString(body);
            return e.isJsonObject() ? e.getAsJsonObject() : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static String string(JsonObject json, String object, String field) {
        JsonElement o = json.get(object);
        if (o == null || !o.isJsonObject()) {
            return null;
        }
        JsonElement v = o.getAsJsonObject().get(field);
        return v == null || !v.isJsonPrimitive() ? null : v.getAsString();
    }

    private static Duration retryAfter(String header) {
        if (header == null) {
            return null;
        }
        try {
            long seconds = Long.parseLong(header.trim());
            return seconds > 0 ? Duration.ofSeconds(seconds) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Duration jitter(Duration d) {
        long nanos = d.toNanos();
        if (nanos <= 0) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(nanos / 2 + ThreadLocalRandom.current().nextLong(nanos / 2 + 1));
    }

    private static String abbreviate(String s) {
        String oneLine = s == null ? "" : s.replaceAll("\\s+", " ").trim();
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 197) + "...";
    }
}
