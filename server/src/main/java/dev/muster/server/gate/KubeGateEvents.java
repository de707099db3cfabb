package dev.muster.server.gate;

import com.google.gson.JsonObject;
import dev.muster.common.kube.KubeClients;
import dev.muster.core.gang.GateEvents;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.server.patch.PacedPodPatches;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link GateEvents} over the Kubernetes API: one {@code events.k8s.io/v1} Event per pod told, regarding the pod,
 * reporting controller {@value #REPORTING_CONTROLLER}:
 * <pre>
 * {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"train-0.18a2f3c4d5e6f708","namespace":"ml"},
 *  "eventTime":"2026-11-26T10:00:00.000000Z","reportingController":"muster.dev/extender","reportingInstance":"muster-extender-0",
 *  "action":"Gate","reason":"GangWaiting","type":"Normal",
 *  "note":"gang ml/train: waiting for 3 nodes from the autoscaler (ProvisioningRequest ml/train-1: Accepted)",
 *  "regarding":{"apiVersion":"v1","kind":"Pod","namespace":"ml","name":"train-0","uid":"…"}}
 * </pre>
 * Reason {@code GangWaiting} while the gang is kept gated, {@code GateLifted} when the pod's gate was lifted. The core
 * decides when a pod is told (on a change of reason, paced per pod); this class only sends.
 *
 * <p><b>Never blocks, bounded.</b> Calls queue the Event and return ({@link PacedPodPatches}, keyed by pod and reason).
 * At most one Event per pod and reason waits (a newer note replaces the one not sent yet, in its place), and at most
 * {@link #MAX_PENDING} in all: beyond that the oldest are dropped and counted. One virtual thread sends them, at most
 * {@code perSecond} a second. <b>Leader only:</b> asked right before each send; a standby drops it.
 *
 * <p>Thread-safe: the Events waiting are {@link PacedPodPatches}' (its lock); counters are atomic. {@link #close()}
 * stops the sender.
 */
public final class KubeGateEvents implements GateEvents, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(KubeGateEvents.class);
    public static final String REPORTING_CONTROLLER = "muster.dev/extender";
    public static final String WAITING = "GangWaiting";
    public static final String LIFTED = "GateLifted";
    static final int MAX_PENDING = 10_000;
    private static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
    private static final int MAX_NAME_PREFIX = 253 - 1 - 16;
    private static final int MAX_NOTE = 1000; // the API allows 1 kB
    private static final int MAX_INSTANCE = 128;

    /** How each Event ended, for the metrics ({@code muster_gate_events_total{outcome}}). */
    public enum Outcome {
        /** Created. */
        SENT,
        /** Not sent: this process does not lead, or too many were waiting. */
        DROPPED,
        /** The API server refused or failed it (logged, not sent again). */
        FAILED
    }

    record Pending(PodId pod, String reason, String note) {}

    private final ApiClient client;
    private final BooleanSupplier leading;
    private final InstantSource clock;
    private final String instance;
    private final Map<Outcome, AtomicLong> outcomes = new EnumMap<>(Outcome.class);
    private final PacedPodPatches<Pending> pending;

    /** @param instance this replica's identity (its pod name) */
    public KubeGateEvents(ApiClient client, BooleanSupplier leading, String instance, int perSecond) {
        this(client, leading, InstantSource.system(), instance, perSecond, true);
    }

    /** {@code startSender} false: nothing is sent until {@link #sendPending()} (deterministic tests). */
    KubeGateEvents(ApiClient client, BooleanSupplier leading, InstantSource clock, String instance, int perSecond, boolean startSender) {
        this.client = Objects.requireNonNull(client, "client");
        this.leading = Objects.requireNonNull(leading, "leading");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.instance = instance == null || instance.isBlank() ? "muster-extender" : instance;
        for (Outcome o : Outcome.values()) {
            outcomes.put(o, new AtomicLong());
        }
        this.pending = new PacedPodPatches<>("gate-events", perSecond, MAX_PENDING, PacedPodPatches.Requeue.KEEP_PLACE,
                e -> outcomes.get(sendNow(e)).incrementAndGet(), startSender);
    }

    @Override
    public void waiting(GangKey gang, List<PodId> pods, String note) {
        for (PodId p : pods) {
            offer(new Pending(p, WAITING, note));
        }
    }

    @Override
    public void lifted(GangKey gang, PodId pod, String note) {
        offer(new Pending(pod, LIFTED, note));
    }

    private void offer(Pending e) {
        PacedPodPatches.Offered<Pending> o = pending.offer(e.pod().uid() + "/" + e.reason(), e);
        outcomes.get(Outcome.DROPPED).addAndGet((o.accepted() ? 0 : 1) + o.dropped().size());
    }

    public long count(Outcome o) {
        return outcomes.get(o).get();
    }

    public int pending() {
        return pending.pending();
    }

    @Override
    public void close() {
        pending.close();
    }

    /** Sends every pending Event now, unpaced, on the caller's thread (tests). */
    void sendPending() {
        pending.sendPending();
    }

    private Outcome sendNow(Pending e) {
        if (!leading.getAsBoolean()) {
            return Outcome.DROPPED;
        }
        String path = "/apis/events.k8s.io/v1/namespaces/" + client.escapeString(e.pod().namespace()) + "/events";
        byte[] body = body(e, clock.instant(), instance).toString().getBytes(StandardCharsets.UTF_8);
        try (Response r = KubeClients.call(client, "POST", path, new ArrayList<>(), body,
                Map.of("Accept", "application/json", "Content-Type", "application/json")).execute()) {
            if (r.isSuccessful()) {
                return Outcome.SENT;
            }
            log.warn("event {} for pod {}: HTTP {} {}", e.reason(), e.pod(), r.code(), r.body() == null ? "" : r.body().string());
        } catch (ApiException | IOException | RuntimeException ex) {
            log.warn("event {} for pod {}: {}", e.reason(), e.pod(), ex.toString());
        }
        return Outcome.FAILED;
    }

    /** The Event object (see the class comment). */
    static JsonObject body(Pending e, Instant now, String instance) {
        PodId pod = e.pod();
        String prefix = pod.name().length() > MAX_NAME_PREFIX ? pod.name().substring(0, MAX_NAME_PREFIX) : pod.name();
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        JsonObject metadata = new JsonObject();
        metadata.addProperty("name", prefix + "." + Long.toHexString(nanos));
        metadata.addProperty("namespace", pod.namespace());
        JsonObject regarding = new JsonObject();
        regarding.addProperty("apiVersion", "v1");
        regarding.addProperty("kind", "Pod");
        regarding.addProperty("namespace", pod.namespace());
        regarding.addProperty("name", pod.name());
        regarding.addProperty("uid", pod.uid());
        JsonObject m = new JsonObject();
        m.addProperty("apiVersion", "events.k8s.io/v1");
        m.addProperty("kind", "Event");
        m.add("metadata", metadata);
        m.addProperty("eventTime", MICRO_TIME.format(now));
        m.addProperty("reportingController", REPORTING_CONTROLLER);
        m.addProperty("reportingInstance", instance.length() > MAX_INSTANCE ? instance.substring(0, MAX_INSTANCE) : instance);
        m.addProperty("action", "Gate");
        m.addProperty("reason", e.reason());
        m.addProperty("type", "Normal");
        String note = e.note();
        m.addProperty("note", note.length() > MAX_NOTE ? note.substring(0, MAX_NOTE - 3) + "..." : note);
        m.add("regarding", regarding);
        return m;
    }
}
