package dev.muster.server.gate;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import dev.muster.common.kube.KubeClients;
import dev.muster.core.gang.GateLifter;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.PodId;
import dev.muster.server.patch.PacedPodPatches;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import okhttp3.Call;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link GateLifter} over the Kubernetes API: removes Muster's scheduling gate ({@link QueueGate#NAME}) from a pod with
 * one JSON patch (RFC 6902) of the pod, read first:
 * <pre>
 * [{"op":"test","path":"/metadata/uid","value":UID},
 *  {"op":"test","path":"/spec/schedulingGates/I/name","value":"muster.dev/queue-admission"},
 *  {"op":"remove","path":"/spec/schedulingGates/I"},
 *  {"op":"add","path":"/metadata/annotations/KEY","value":VALUE}, ...]
 * </pre>
 * The tests make the patch a precondition: if the pod was recreated under its name, or its gates changed since it was
 * read (another gate added or removed before Muster's), the API server applies nothing and the pod is read and patched
 * again (at most {@link #ATTEMPTS} times). Nothing else of the pod is touched, so a concurrent change of anything else
 * is kept. A pod that is gone, or no longer carries the gate (lifted by an earlier leader, say), is done: lifting is
 * idempotent. The chart's ValidatingAdmissionPolicy lets the extender's ServiceAccount make exactly this change.
 *
 * <p><b>Pacing.</b> Lifts are queued per pod ({@link PacedPodPatches}: a pod lifted again before it was sent keeps its
 * place, and one patch answers both) and sent by one virtual thread, at most {@code perSecond} pods a second (each
 * a GET and a PATCH), like the pod waker's status patches: a gang of 1,000 lifted at once takes 1,000/{@code perSecond}
 * seconds, never a burst. <b>Leader only:</b> asked right before every lift; a standby drops it (the new leader's core
 * lifts whatever it sees still gated).
 *
 * <p>Thread-safe: the lifts waiting are {@link PacedPodPatches}' (its lock); counters are atomic. {@link #close()} stops the
 * sender and answers the lifts still waiting with "closed".
 */
public final class KubeGateLifter implements GateLifter, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KubeGateLifter.class);
    static final String PATCH_TYPE = "application/json-patch+json";
    /** Reads and patches of one pod before a lift gives up (the core sends it again later). */
    static final int ATTEMPTS = 5;
    private static final String CLOSED = "the gate lifter is closed";

    /** How each lift ended, for the metrics ({@code muster_gate_lifts_total{outcome}}). */
    public enum Outcome {
        /** The gate was removed. */
        LIFTED,
        /** The pod is gone, was recreated, or carries the gate no more: nothing to do. */
        GONE,
        /** Not sent: this process does not lead. */
        DROPPED,
        /** The API server refused or failed it (logged); the core sends it again. */
        FAILED
    }

    private record Lift(PodId pod, Map<String, String> annotations, CompletableFuture<String> done) {}

    private final ApiClient client;
    private final BooleanSupplier leading;
    private final Map<Outcome, AtomicLong> outcomes = new EnumMap<>(Outcome.class);
    private final PacedPodPatches<Lift> lifts;

    public KubeGateLifter(ApiClient client, BooleanSupplier leading, int perSecond) {
        this(client, leading, perSecond, true);
    }

    /** {@code startSender} false: nothing is sent until {@link #sendPending()} (deterministic tests). */
    KubeGateLifter(ApiClient client, BooleanSupplier leading, int perSecond, boolean startSender) {
        this.client = Objects.requireNonNull(client, "client");
        this.leading = Objects.requireNonNull(leading, "leading");
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, new AtomicLong());
        }
        // unbounded but for the number of pods: a lift waits until it is sent, or replaced by a later one of its pod
        this.lifts = new PacedPodPatches<>("gate-lifter", perSecond, Integer.MAX_VALUE, PacedPodPatches.Requeue.KEEP_PLACE,
                l -> finish(l, liftNow(l)), startSender);
    }

    @Override
    public CompletionStage<String> lift(PodId pod, Map<String, String> annotations) {
        CompletableFuture<String> done = new CompletableFuture<>();
        PacedPodPatches.Offered<Lift> offered = lifts.offer(pod.uid(), new Lift(pod, Map.copyOf(annotations), done));
        if (!offered.accepted()) {
            return CompletableFuture.completedFuture(CLOSED);
        }
        Lift replaced = offered.replaced();
        if (replaced != null) {
            done.whenComplete((r, e) -> replaced.done().complete(r)); // one patch answers both
        }
        return done;
    }

    @Override
    public boolean ready() {
        return leading.getAsBoolean();
    }

    public long count(Outcome o) {
        return outcomes.get(o).get();
    }

    public int pending() {
        return lifts.pending();
    }

    @Override
    public void close() {
        lifts.close().forEach(l -> l.done().complete(CLOSED));
    }

    /** Sends every pending lift now, unpaced, on the caller's thread (tests). */
    void sendPending() {
        lifts.sendPending();
    }

    private record Result(Outcome outcome, String why) {}

    private void finish(Lift l, Result r) {
        outcomes.get(r.outcome()).incrementAndGet();
        l.done().complete(r.outcome() == Outcome.LIFTED || r.outcome() == Outcome.GONE ? null : r.why());
    }

    private Result liftNow(Lift l) {
        if (!leading.getAsBoolean()) {
            return new Result(Outcome.DROPPED, "this process does not lead");
        }
        PodId p = l.pod();
        String path = "/api/v1/namespaces/" + client.escapeString(p.namespace()) + "/pods/" + client.escapeString(p.name());
        String last = "";
        try {
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                JsonObject pod;
                try (Response r = call("GET", path, null, "application/json").execute()) {
                    if (r.code() == 404) {
                        return new Result(Outcome.GONE, "pod gone");
                    }
                    if (!r.isSuccessful()) {
                        last = "reading it: HTTP " + r.code() + " " + (r.body() == null ? "" : r.body().string());
                        continue;
                    }
                    pod = JsonParser.parseString(r.body().string()).getAsJsonObject();
                }
                byte[] patch = patch(pod, p.uid(), l.annotations());
                if (patch == null) {
                    return new Result(Outcome.GONE, "pod recreated or gate gone");
                }
                try (Response r = call("PATCH", path, patch, PATCH_TYPE).execute()) {
                    if (r.isSuccessful()) {
                        log.debug("lifted {} from {}", QueueGate.NAME, p);
                        return new Result(Outcome.LIFTED, null);
                    }
                    if (r.code() == 404) {
                        return new Result(Outcome.GONE, "pod gone");
                    }
                    last = "HTTP " + r.code() + " " + (r.body() == null ? "" : r.body().string());
                    if (r.code() != 409 && r.code() != 422 && r.code() != 429 && r.code() < 500) {
                        break; // refused (forbidden, say): reading it again changes nothing
                    }
                }
            }
        } catch (ApiException | IOException | RuntimeException e) {
            last = e.toString();
        }
        log.warn("lifting {} from pod {}: {}", QueueGate.NAME, p, last);
        return new Result(Outcome.FAILED, last);
    }

    private Call call(String method, String path, byte[] body, String contentType) throws ApiException {
        Map<String, String> headers = body == null ? Map.of("Accept", "application/json")
                : Map.of("Accept", "application/json", "Content-Type", contentType);
        return KubeClients.call(client, method, path, new ArrayList<>(), body, headers);
    }

    /**
     * The JSON patch that lifts Muster's gate from {@code pod} (as read) and adds {@code annotations}, or null when there
     * is nothing to lift: the pod read is not {@code uid} (recreated under its name) or carries no such gate.
     */
    static byte[] patch(JsonObject pod, String uid, Map<String, String> annotations) {
        JsonObject metadata = pod.getAsJsonObject("metadata");
        if (metadata == null || !uid.equals(string(metadata.get("uid")))) {
            return null;
        }
        JsonObject spec = pod.getAsJsonObject("spec");
        JsonArray gates = spec == null || !spec.has("schedulingGates") ? new JsonArray() : spec.getAsJsonArray("schedulingGates");
        int index = -1;
        for (int i = 0; i < gates.size(); i++) {
            if (QueueGate.NAME.equals(string(gates.get(i).getAsJsonObject().get("name")))) {
                index = i;
                break;
            }
        }
        if (index < 0) {
            return null;
        }
        JsonArray ops = new JsonArray();
        ops.add(op("test", "/metadata/uid", new JsonPrimitive(uid)));
        ops.add(op("test", "/spec/schedulingGates/" + index + "/name", new JsonPrimitive(QueueGate.NAME)));
        ops.add(op("remove", "/spec/schedulingGates/" + index, null));
        if (!annotations.isEmpty()) {
            if (!metadata.has("annotations") || metadata.get("annotations").isJsonNull()) {
                JsonObject all = new JsonObject();
                annotations.forEach(all::addProperty);
                ops.add(op("add", "/metadata/annotations", all));
            } else {
                annotations.forEach((k, v) -> ops.add(op("add", "/metadata/annotations/" + pointerEscape(k), new JsonPrimitive(v))));
            }
        }
        return ops.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static JsonObject op(String op, String path, JsonElement value) {
        JsonObject o = new JsonObject();
        o.addProperty("op", op);
        o.addProperty("path", path);
        if (value != null) {
            o.add("value", value);
        }
        return o;
    }

    /** A JSON pointer token (RFC 6901): {@code ~} as {@code ~0}, {@code /} as {@code ~1}. */
    static String pointerEscape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static String string(JsonElement e) {
        return e == null || e.isJsonNull() ? null : e.getAsString();
    }
}
