package dev.muster.controller.writer;

import dev.muster.common.kube.GangApiDiscovery;
import dev.muster.common.kube.GangApiGroups;
import dev.muster.common.kube.GangClaims;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.status.GangNote;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Creates {@code events.k8s.io/v1} Events about PodGroups with client-java: one {@code POST} per Event, regarding the
 * PodGroup in the API (and served version) that owns it ({@link GangClaims}, {@link GangApiDiscovery}), reporting
 * controller {@link #REPORTING_CONTROLLER}, reporting instance this replica's pod name:
 * <pre>
 * {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"train.18a2f3c4d5e6f708","namespace":"ml"},
 *  "eventTime":"2026-11-26T10:00:00.000000Z","reportingController":"muster.dev/controller","reportingInstance":"muster-controller-0",
 *  "action":"CountMembers","reason":"GangBelowMinimum","type":"Warning","note":"3 of minimum 4 members bound; lost: ml/train-3",
 *  "regarding":{"apiVersion":"scheduling.k8s.io/v1alpha2","kind":"PodGroup","namespace":"ml","name":"train"}}
 * </pre>
 * Preemptions use action {@code Preempt}: reason {@code Preempted} (Warning) on a victim gang's PodGroup, {@code Preempting}
 * (Normal) on the preemptor's. The name is the PodGroup's plus the time in hex, as client-go names Events. Confined to the flush thread (one Event
 * at a time); {@code ApiClient} is thread-safe.
 */
public final class KubeEventRecorder implements EventRecorder {
    public static final String REPORTING_CONTROLLER = "muster.dev/controller";
    private static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
    private static final int MAX_NAME_PREFIX = 253 - 1 - 16;
    private static final int MAX_NOTE = 1000; // the API allows 1 kB
    private static final int MAX_INSTANCE = 128;

    private final CustomObjectsApi api;
    private final GangClaims claims;
    private final GangApiDiscovery gangApis; // may be null: then the oldest version Muster reads
    private final InstantSource clock;
    private final String instance;

    /**
     * @param instance this replica's identity (its pod name)
     */
    public KubeEventRecorder(ApiClient client, GangClaims claims, GangApiDiscovery gangApis, InstantSource clock, String instance) {
        this.api = new CustomObjectsApi(client);
        this.claims = Objects.requireNonNull(claims, "claims");
        this.gangApis = gangApis;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.instance = instance == null || instance.isBlank() ? "muster-controller" : instance;
    }

    @Override
    public void record(GangNote change) throws StatusPatchException {
        GangKey gang = change.gang();
        Map<String, Object> body = body(change, apiVersionOf(claims.owner(gang)), clock.instant(), instance);
        try {
            api.createNamespacedCustomObject("events.k8s.io", "v1", gang.namespace(), "events", body).execute();
        } catch (ApiException e) {
            throw KubeStatusPatcher.failure("POST", "event " + change.reason() + " for podgroup " + gang,
                    "/apis/events.k8s.io/v1/namespaces/" + gang.namespace() + "/events", e);
        }
    }

    /** {@code group/version} of the PodGroup of {@code owner} (Volcano's when unknown). */
    String apiVersionOf(GangApi owner) {
        if (owner == null || owner == GangApi.VOLCANO) {
            return KubeStatusPatcher.GROUP + "/" + KubeStatusPatcher.VERSION;
        }
        return GangApiGroups.group(owner) + "/" + KubeStatusPatcher.versionOf(gangApis, owner);
    }

    /** The Event object (see the class comment). */
    static Map<String, Object> body(GangNote change, String apiVersion, Instant now, String instance) {
        GangKey gang = change.gang();
        String prefix = gang.name().length() > MAX_NAME_PREFIX ? gang.name().substring(0, MAX_NAME_PREFIX) : gang.name();
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", prefix + "." + Long.toHexString(nanos));
        metadata.put("namespace", gang.namespace());
        Map<String, Object> regarding = new LinkedHashMap<>();
        regarding.put("apiVersion", apiVersion);
        regarding.put("kind", "PodGroup");
        regarding.put("namespace", gang.namespace());
        regarding.put("name", gang.name());
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("apiVersion", "events.k8s.io/v1");
        m.put("kind", "Event");
        m.put("metadata", metadata);
        m.put("eventTime", MICRO_TIME.format(now));
        m.put("reportingController", REPORTING_CONTROLLER);
        m.put("reportingInstance", instance.length() > MAX_INSTANCE ? instance.substring(0, MAX_INSTANCE) : instance);
        m.put("action", change.action());
        m.put("reason", change.reason());
        m.put("type", change.warning() ? "Warning" : "Normal");
        String note = change.note();
        m.put("note", note.length() > MAX_NOTE ? note.substring(0, MAX_NOTE - 3) + "..." : note);
        m.put("regarding", regarding);
        return m;
    }
}
